import { LoaderCircle } from 'lucide-react';

/** A sign-in page's one button, spinning while its request is out (and disabled then, so it is sent once). */
export function SubmitButton({ label, busy, disabled = false }: { label: string; busy: boolean; disabled?: boolean }) {
  return (
    <button type="submit" className="button button--primary signin__submit" disabled={busy || disabled}>
      {busy ? <LoaderCircle size={16} className="spin" aria-hidden="true" /> : null}
      {label}
    </button>
  );
}
