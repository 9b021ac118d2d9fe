import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FolderPlus } from 'lucide-react';
import { refusalOf } from '../../lib/moveTargets';
import { Breadcrumb } from '../Breadcrumb/Breadcrumb';
import { Dialog } from '../Dialog/Dialog';
import { DialogButtons, useActionThenClose } from '../Dialog/DialogButtons';
import { FolderPicker } from './FolderPicker';
import { NewFolderField } from './NewFolderField';
import './MoveDialog.css';

export type TransferMode = 'move' | 'copy';

interface MoveDialogProps {
  username: string;
  mode: TransferMode;
  /** The names of what is moved or copied (shown in the title). */
  names: readonly string[];
  /** The paths of the folders among them: neither they nor anything below them can take them (409). */
  folders?: readonly string[];
  /** Where they are now (null: the root): not offered, as the daemon would refuse it (409). */
  from: string | null;
  onPick: (to: string | null) => Promise<unknown> | void;
  onClose: () => void;
}

const NO_FOLDERS: readonly string[] = [];

/**
 * Picks a target for a move or copy by browsing the user's tree: it opens where the items
 * are, folders open into it, the breadcrumbs go back up, and the open folder is the target.
 */
export function MoveDialog({ username, mode, names, folders = NO_FOLDERS, from, onPick, onClose }: MoveDialogProps) {
  const { t } = useTranslation();
  const [at, setAt] = useState<string | null>(from);
  const [naming, setNaming] = useState(false);
  const { busy, run } = useActionThenClose(onClose);
  const refusal = (target: string | null) => refusalOf(target, from, folders);
  const refused = refusal(at);
  const title =
    names.length === 1
      ? t(`explorer:move.title.${mode}One`, { name: names[0] })
      : t(`explorer:move.title.${mode}${folders.length > 0 ? 'Items' : 'Many'}`, { count: names.length });

  const newButton = useRef<HTMLButtonElement>(null);

  function go(folder: string | null) {
    setNaming(false);
    setAt(folder);
  }
  function stopNaming() {
    setNaming(false);
    // The field goes: the focus goes back to the button that opened it, still inside the dialog.
    requestAnimationFrame(() => newButton.current?.focus());
  }

  return (
    <Dialog
      title={title}
      onClose={onClose}
      width={520}
      // The listing's tab stop when it is there at once (cached); else the picker focuses it once listed.
      initialFocus='.move-picker [data-entry][tabindex="0"]'
      footer={
        <DialogButtons
          label={t(`explorer:move.submit.${mode}`)}
          tone="primary"
          disabled={refused !== null || busy}
          onCancel={onClose}
          onClick={() => void run(() => onPick(at))}
          cancelLabel={t('explorer:move.cancel')}
        />
      }
    >
      <div className="move-picker">
        <div className="move-picker__bar">
          <Breadcrumb username={username} folder={at} onOpen={go} label={t('explorer:move.path')} />
          {naming ? null : (
            <button ref={newButton} type="button" className="button button--ghost move-picker__new" onClick={() => setNaming(true)}>
              <FolderPlus size={16} aria-hidden="true" />
              {t('explorer:move.newFolder')}
            </button>
          )}
        </div>
        {naming ? <NewFolderField username={username} at={at} onCreated={go} onCancel={stopNaming} /> : null}
        <FolderPicker key={at ?? ''} username={username} at={at} onOpen={go} refusal={refusal} />
        <p className="move-picker__target" aria-live="polite">
          {refused === null
            ? t(`explorer:move.target.${mode}`, { name: at ?? username })
            : t(`explorer:move.refusedHere.${refused}`, { name: at ?? username })}
        </p>
      </div>
    </Dialog>
  );
}
