import { useState } from 'react';
import { useTranslation } from 'react-i18next';

interface DialogButtonsProps {
  /** What the dialog does, on its main button. */
  label: string;
  tone: 'primary' | 'danger';
  disabled: boolean;
  onCancel: () => void;
  /** Absent when the button submits the form named by `form`. */
  onClick?: () => void;
  form?: string;
  cancelLabel?: string;
}

/** A dialog's footer: Cancel, then the one thing the dialog does. */
export function DialogButtons({ label, tone, disabled, onCancel, onClick, form, cancelLabel }: DialogButtonsProps) {
  const { t } = useTranslation();
  return (
    <>
      <button type="button" className="button" onClick={onCancel}>
        {cancelLabel ?? t('common:cancel')}
      </button>
      <button
        type={form ? 'submit' : 'button'}
        form={form}
        className={`button button--${tone}`}
        data-confirm
        disabled={disabled}
        onClick={onClick}
      >
        {label}
      </button>
    </>
  );
}

/**
 * Runs a dialog's action and closes the dialog after, whether it worked or not (a failure is
 * the action's own toast); `busy` meanwhile, so a second click cannot run it twice.
 */
export function useActionThenClose(onClose: () => void) {
  const [busy, setBusy] = useState(false);
  async function run(action: () => Promise<unknown> | void) {
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
      onClose();
    }
  }
  return { busy, run };
}

/** Sends a form dialog's values and closes it once they are saved (false keeps it open, to correct them). */
export function useSaveThenClose(onClose: () => void) {
  const [busy, setBusy] = useState(false);
  async function save(send: () => Promise<boolean>) {
    setBusy(true);
    const saved = await send();
    setBusy(false);
    if (saved) onClose();
  }
  return { busy, save };
}
