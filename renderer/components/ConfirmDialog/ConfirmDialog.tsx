import { useTranslation } from 'react-i18next';
import { useState, type ReactNode } from 'react';
import { Dialog } from '../Dialog/Dialog';

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  onClose: () => void;
}

/** Asks before something destructive; the destructive button has focus, so Enter confirms and Escape cancels. */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, onClose }: ConfirmDialogProps) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  async function confirm() {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      onClose();
    }
  }
  return (
    <Dialog
      title={title}
      onClose={onClose}
      initialFocus="[data-confirm]"
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            {t('common:cancel')}
          </button>
          <button type="button" className="button button--danger" data-confirm onClick={() => void confirm()} disabled={busy}>
            {confirmLabel}
          </button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
