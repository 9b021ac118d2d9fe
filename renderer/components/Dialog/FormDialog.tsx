import { useId, type FormEvent, type ReactNode } from 'react';
import { Dialog } from './Dialog';
import { DialogButtons } from './DialogButtons';

interface FormDialogProps {
  title: string;
  submitLabel: string;
  busy: boolean;
  onSubmit: (event: FormEvent) => void;
  onClose: () => void;
  children: ReactNode;
}

/** A dialog around one form: its fields, then Cancel and the button that submits them (Enter does too). */
export function FormDialog({ title, submitLabel, busy, onSubmit, onClose, children }: FormDialogProps) {
  const formId = useId();
  return (
    <Dialog
      title={title}
      onClose={onClose}
      footer={<DialogButtons label={submitLabel} tone="primary" disabled={busy} onCancel={onClose} form={formId} />}
    >
      <form id={formId} onSubmit={onSubmit} noValidate>
        {children}
      </form>
    </Dialog>
  );
}
