import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { ToastCard } from './ToastCard';
import { ToastContext, ToastHostContext, type Toast, type ToastApi, type ToastHostRegistry, type ToastInput } from './toastContext';
import './Toasts.css';

/** At most this many errors wait on screen (the oldest goes); the others leave by themselves. */
const MAX_ERRORS = 5;
const MAX_OTHERS = 3;

/** `list` with only the newest MAX_ERRORS errors and MAX_OTHERS other toasts: a success never pushes out an error. */
function capped(list: Toast[]): Toast[] {
  const errors = list.filter((toast) => toast.kind === 'error');
  const others = list.filter((toast) => toast.kind !== 'error');
  const kept = new Set([...errors.slice(-MAX_ERRORS), ...others.slice(-MAX_OTHERS)]);
  return list.filter((toast) => kept.has(toast));
}

/** Every place offered for the toasts, by kind, in the order they were offered. */
function useToastPlaces() {
  const [places, setPlaces] = useState<{ host: HTMLElement; kind: 'overlay' | 'page' }[]>([]);
  const register = useCallback<ToastHostRegistry>((host, kind = 'overlay') => {
    setPlaces((list) => [...list, { host, kind }]);
    return () => setPlaces((list) => list.filter((place) => place.host !== host));
  }, []);
  // The innermost overlay (opened last) wins over the page's strip, whatever order they mounted in.
  const last = (kind: 'overlay' | 'page') => places.filter((place) => place.kind === kind).at(-1)?.host ?? null;
  return { register, overlay: last('overlay'), page: last('page') };
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(0);

  // Each toast counts its own time (ToastCard: paused while hovered or focused).
  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((toast) => toast.id !== id)), []);

  const show = useCallback((input: ToastInput) => {
    const id = ++nextId.current;
    setToasts((list) => {
      // The same message again (a failing refetch, a second click) shows once, as the newest.
      const duplicate = list.find((t) => t.kind === input.kind && t.title === input.title && t.detail === input.detail);
      const rest = duplicate ? list.filter((t) => t !== duplicate) : list;
      return capped([...rest, { ...input, id }]);
    });
    return id;
  }, []);

  const clear = useCallback(() => setToasts([]), []);

  const { register, overlay, page } = useToastPlaces();
  useDockHeight(page);

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

  // A stack taller than the strip scrolls inside it: the newest is kept in view.
  const regionRef = useRef<HTMLDivElement>(null);
  const newest = toasts.at(-1)?.id;
  useEffect(() => {
    const region = regionRef.current;
    if (region && newest !== undefined) region.scrollTop = region.scrollHeight;
  }, [newest]);

  const placement = overlay ? 'toasts--in-dialog' : page ? 'toasts--docked' : 'toasts--floating';
  const region = (
    <div ref={regionRef} className={`toasts ${placement}`} aria-label={t('common:notifications')} role="region">
      {toasts.map((toast) => (
        <ToastCard key={toast.id} toast={toast} onDismiss={dismiss} />
      ))}
    </div>
  );

  // Toasts go where they cover nothing: beside an open dialog (only while there is something
  // to show: an empty place would shift it), else in the page's strip, else (the sign-in page)
  // floating in a corner.
  let placed: ReactNode = region;
  if (overlay) placed = toasts.length > 0 ? createPortal(region, overlay) : null;
  else if (page) placed = createPortal(region, page);

  return (
    <ToastContext.Provider value={api}>
      <ToastHostContext.Provider value={register}>{children}</ToastHostContext.Provider>
      {placed}
    </ToastContext.Provider>
  );
}

/**
 * Publishes the page strip's height as `--toast-dock-height`, so what floats at the bottom of
 * the window (the upload panel) stays above the toasts rather than over them.
 */
function useDockHeight(page: HTMLElement | null): void {
  useEffect(() => {
    if (!page || typeof ResizeObserver === 'undefined') return;
    const root = document.documentElement;
    const observer = new ResizeObserver(() => {
      root.style.setProperty('--toast-dock-height', `${page.offsetHeight}px`);
      // A smaller window makes the strip smaller: the newest toast stays the one in view.
      const region = page.firstElementChild;
      if (region) region.scrollTop = region.scrollHeight;
    });
    observer.observe(page);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--toast-dock-height');
    };
  }, [page]);
}
