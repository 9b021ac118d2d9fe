import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Folder, HardDrive } from 'lucide-react';
import { useFolders } from '../../hooks/queries';
import { Dialog } from '../Dialog/Dialog';
import { DialogButtons, useActionThenClose } from '../Dialog/DialogButtons';
import './MoveDialog.css';

export type TransferMode = 'move' | 'copy';

interface MoveDialogProps {
  username: string;
  mode: TransferMode;
  /** The files to move or copy (shown in the title). */
  names: readonly string[];
  /** Where they are now (null: the root): not offered, as the daemon would refuse it (409). */
  from: string | null;
  onPick: (to: string | null) => Promise<unknown> | void;
  onClose: () => void;
}

const ROOT = '\u0000root';

/** Picks a target for a move or copy: the user's root or one of their folders. */
export function MoveDialog({ username, mode, names, from, onPick, onClose }: MoveDialogProps) {
  const { t } = useTranslation();
  const folders = useFolders(username);
  const targets = [
    ...(from === null ? [] : [{ value: ROOT, label: username, root: true }]),
    ...(folders.data ?? [])
      .filter((folder) => folder.name !== from)
      .map((folder) => ({ value: folder.name, label: folder.name, root: false })),
  ];
  const [chosen, setChosen] = useState<string | null>(null);
  const { busy, run } = useActionThenClose(onClose);
  const picked = chosen ?? targets[0]?.value ?? null;
  const title =
    names.length === 1
      ? t(`explorer:move.title.${mode}One`, { name: names[0] })
      : t(`explorer:move.title.${mode}Many`, { count: names.length });

  async function submit() {
    if (picked === null) return;
    await run(() => onPick(picked === ROOT ? null : picked));
  }

  return (
    <Dialog
      title={title}
      onClose={onClose}
      initialFocus="input[type=radio]:checked"
      footer={
        <DialogButtons
          label={t(`explorer:move.submit.${mode}`)}
          tone="primary"
          disabled={picked === null || busy}
          onCancel={onClose}
          onClick={() => void submit()}
          cancelLabel={t('explorer:move.cancel')}
        />
      }
    >
      {folders.isPending ? (
        <p role="status">{t('explorer:move.loading')}</p>
      ) : targets.length === 0 ? (
        <p>{t('explorer:move.noTargets')}</p>
      ) : (
        <fieldset className="move-targets">
          <legend className="visually-hidden">{t('explorer:move.legend')}</legend>
          {targets.map((target) => {
            const Icon = target.root ? HardDrive : Folder;
            return (
              <label key={target.value} className="move-targets__option">
                <input
                  type="radio"
                  name="move-target"
                  value={target.value}
                  checked={picked === target.value}
                  onChange={() => setChosen(target.value)}
                  onKeyDown={(event) => {
                    if (event.key === 'Enter') {
                      event.preventDefault();
                      void submit();
                    }
                  }}
                />
                <Icon size={16} aria-hidden="true" className={target.root ? undefined : 'move-targets__folder'} />
                <span className="move-targets__name">{target.root ? t('explorer:move.root', { username }) : target.label}</span>
              </label>
            );
          })}
        </fieldset>
      )}
    </Dialog>
  );
}
