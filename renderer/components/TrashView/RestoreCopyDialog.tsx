import { useTranslation } from 'react-i18next';
import type { TrashItem } from '../../../shared/types';
import { Dialog } from '../Dialog/Dialog';
import { DialogButtons, useActionThenClose } from '../Dialog/DialogButtons';

interface RestoreCopyDialogProps {
  /** Items whose restore answered 409: their name is taken again where they were. */
  items: TrashItem[];
  onConfirm(): Promise<void>;
  onClose(): void;
}

/**
 * The choice the daemon leaves to the person when a name is taken again (docs/explorer.md:
 * 409, nothing changed): keep it in the trash, or restore it beside the other as
 * "name (restored).ext", the word in the person's language (the daemon takes it as `suffix`).
 */
export function RestoreCopyDialog({ items, onConfirm, onClose }: RestoreCopyDialogProps) {
  const { t } = useTranslation();
  const { busy, run } = useActionThenClose(onClose);
  const one = items.length === 1 ? items[0] : null;
  return (
    <Dialog
      title={one ? t('trash:copyTitle', { name: one.name }) : t('trash:copyManyTitle', { count: items.length })}
      onClose={onClose}
      initialFocus="[data-confirm]"
      footer={
        <DialogButtons
          label={t('trash:restoreAsCopy')}
          tone="primary"
          disabled={busy}
          onCancel={onClose}
          onClick={() => void run(onConfirm)}
        />
      }
    >
      <p>
        {one
          ? t('trash:copyText', { name: one.name, place: one.folder ?? t('trash:root'), word: t('trash:restoredWord') })
          : t('trash:copyManyText', { count: items.length, word: t('trash:restoredWord') })}
      </p>
      {one ? null : (
        <ul className="trash__copy-list">
          {items.map((item) => (
            <li key={item.id}>{item.name}</li>
          ))}
        </ul>
      )}
    </Dialog>
  );
}
