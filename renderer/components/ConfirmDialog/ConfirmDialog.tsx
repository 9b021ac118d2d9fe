import type { ReactNode } from 'react';
import { Dialog } from '../Dialog/Dialog';
import { DialogButtons, useActionThenClose } from '../Dialog/DialogButtons';

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  onClose: () => void;
}

/** Asks before something destructive; the destructive button has focus, so Enter confirms and Escape cancels. */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, onClose }: ConfirmDialogProps) {
  const { busy, run } = useActionThenClose(onClose);
  return (
    <Dialog
      title={title}
      onClose={onClose}
      initialFocus="[data-confirm]"
      footer={<DialogButtons label={confirmLabel} tone="danger" disabled={busy} onCancel={onClose} onClick={() => void run(onConfirm)} />}
    >
      {children}
    </Dialog>
  );
}
