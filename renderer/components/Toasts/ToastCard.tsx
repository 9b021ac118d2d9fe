import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { CircleAlert, CircleCheck, Info, X } from 'lucide-react';
import type { Toast } from './toastContext';
import { useDismissTimer } from './useDismissTimer';

/** How long a toast that is not an error stays (unless hovered or focused). */
export const SHOW_MS = { success: 5_000, info: 6_000 } as const;
/** A toast with a button (Undo) stays long enough to be reached by keyboard or a screen reader. */
export const ACTION_MS = 10_000;

const ICONS = { error: CircleAlert, success: CircleCheck, info: Info } as const;

/** How long `toast` stays by itself: null for errors (they wait to be dismissed) and sticky toasts. */
export function lifetimeOf(toast: Pick<Toast, 'kind' | 'sticky' | 'action'>): number | null {
  if (toast.kind === 'error' || toast.sticky) return null;
  return toast.action ? ACTION_MS : SHOW_MS[toast.kind];
}

/** One toast: icon, title, detail, its button if any, and a close button. */
export function ToastCard({ toast, onDismiss }: { toast: Toast; onDismiss: (id: number) => void }) {
  const { t } = useTranslation();
  const dismiss = useCallback(() => onDismiss(toast.id), [onDismiss, toast.id]);
  const { handlers } = useDismissTimer(lifetimeOf(toast), dismiss);
  const Icon = ICONS[toast.kind];
  return (
    <div className={`toast toast--${toast.kind}`} role={toast.kind === 'error' ? 'alert' : 'status'} aria-atomic="true" {...handlers}>
      <Icon className="toast__icon" size={18} aria-hidden="true" />
      <div className="toast__body">
        <div className="toast__title">{toast.title}</div>
        {toast.detail ? <div className="toast__detail">{toast.detail}</div> : null}
      </div>
      {toast.action ? (
        <button
          type="button"
          className="button toast__action"
          onClick={() => {
            dismiss();
            toast.action?.run();
          }}
        >
          {toast.action.label}
        </button>
      ) : null}
      <button type="button" className="icon-button toast__close" aria-label={t('common:dismissNotification')} onClick={dismiss}>
        <X size={16} aria-hidden="true" />
      </button>
    </div>
  );
}
