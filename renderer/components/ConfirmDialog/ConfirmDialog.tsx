import type { ReactNode } from 'react';
import { Dialog } from '../Dialog/Dialog';
import { DialogButtons, useActionThenClose } from '../Dialog/DialogButtons';

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  onClose: () => void;
  /** The confirming button's look: danger (the default) for what cannot be undone, primary for what loses nothing. */
  tone?: 'primary' | 'danger';
}

/** Asks before something destructive (or, in the primary tone, weighty); the confirming button has focus, so Enter confirms and Escape cancels. */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, onClose, tone = 'danger' }: ConfirmDialogProps) {
  const { busy, run } = useActionThenClose(onClose);
  return (
    <Dialog
      title={title}
      onClose={onClose}
      initialFocus="[data-confirm]"
      footer={<DialogButtons label={confirmLabel} tone={tone} disabled={busy} onCancel={onClose} onClick={() => void run(onConfirm)} />}
    >
      {children}
    </Dialog>
  );
}
