import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { CircleAlert, CircleCheck, Info, X } from 'lucide-react';
import { ToastContext, ToastHostContext, type Toast, type ToastApi, type ToastHostRegistry, type ToastInput } from './toastContext';
import './Toasts.css';

const AUTO_DISMISS_MS = { error: 10_000, success: 5_000, info: 5_000 } as const;
// A toast with a button (Undo) stays long enough to be reached by keyboard or a screen reader.
const ACTION_DISMISS_MS = 12_000;
const MAX_VISIBLE = 5;

const ICONS = { error: CircleAlert, success: CircleCheck, info: Info } as const;

export function ToastProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(0);
  const timers = useRef(new Map<number, number>());

  const dismiss = useCallback((id: number) => {
    const timer = timers.current.get(id);
    if (timer !== undefined) window.clearTimeout(timer);
    timers.current.delete(id);
    setToasts((list) => list.filter((toast) => toast.id !== id));
  }, []);

  const show = useCallback(
    (input: ToastInput) => {
      const id = ++nextId.current;
      setToasts((list) => {
        // The same message twice in a row (e.g. a failing refetch) shows once.
        const duplicate = list.find((t) => t.kind === input.kind && t.title === input.title && t.detail === input.detail);
        const rest = duplicate ? list.filter((t) => t !== duplicate) : list;
        return [...rest, { ...input, id }].slice(-MAX_VISIBLE);
      });
      if (!input.sticky)
        timers.current.set(
          id,
          window.setTimeout(() => dismiss(id), input.action ? ACTION_DISMISS_MS : AUTO_DISMISS_MS[input.kind]),
        );
      return id;
    },
    [dismiss],
  );

  const clear = useCallback(() => {
    timers.current.forEach((timer) => window.clearTimeout(timer));
    timers.current.clear();
    setToasts([]);
  }, []);

  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach((timer) => window.clearTimeout(timer));
  }, []);

  // Open dialogs, innermost last: toasts go to the place the innermost one keeps for them.
  const [hosts, setHosts] = useState<HTMLElement[]>([]);
  const registerHost = useCallback<ToastHostRegistry>((host) => {
    setHosts((list) => [...list, host]);
    return () => setHosts((list) => list.filter((other) => other !== host));
  }, []);
  const host = hosts.length > 0 ? hosts[hosts.length - 1] : null;

  const api = useMemo<ToastApi>(
    () => ({
      show,
      dismiss,
      clear,
      error: (title, detail) => show({ kind: 'error', title, detail }),
      success: (title, detail) => show({ kind: 'success', title, detail }),
    }),
    [show, dismiss, clear],
  );

  const region = (
    <div className={`toasts${host ? ' toasts--in-dialog' : ''}`} aria-label={t('common:notifications')} role="region">
      {toasts.map((toast) => {
        const Icon = ICONS[toast.kind];
        return (
          <div
            key={toast.id}
            className={`toast toast--${toast.kind}`}
            role={toast.kind === 'error' ? 'alert' : 'status'}
            aria-atomic="true"
          >
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
                  dismiss(toast.id);
                  toast.action?.run();
                }}
              >
                {toast.action.label}
              </button>
            ) : null}
            <button
              type="button"
              className="icon-button toast__close"
              aria-label={t('common:dismissNotification')}
              onClick={() => dismiss(toast.id)}
            >
              <X size={16} aria-hidden="true" />
            </button>
          </div>
        );
      })}
    </div>
  );

  return (
    <ToastContext.Provider value={api}>
      <ToastHostContext.Provider value={registerHost}>{children}</ToastHostContext.Provider>
      {/* Beside an open dialog, only while there is something to show (an empty place would shift it). */}
      {host ? (toasts.length > 0 ? createPortal(region, host) : null) : region}
    </ToastContext.Provider>
  );
}
