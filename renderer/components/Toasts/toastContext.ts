import { createContext, useContext } from 'react';

export type ToastKind = 'error' | 'success' | 'info';

export interface ToastInput {
  kind: ToastKind;
  title: string;
  /** Second line: the daemon's message, a link… */
  detail?: string;
  /**
   * Keeps the toast until dismissed (a link a person may want to copy). Errors always stay until
   * dismissed; anything else leaves by itself after a few seconds unless this is set.
   */
  sticky?: boolean;
  /** One button in the toast ("Undo" after a delete); the toast closes when it is pressed. */
  action?: ToastAction;
}

export interface ToastAction {
  label: string;
  run: () => void;
}

export interface Toast extends ToastInput {
  id: number;
}

export interface ToastApi {
  show(toast: ToastInput): number;
  error(title: string, detail?: string): number;
  success(title: string, detail?: string): number;
  dismiss(id: number): void;
  /** Removes every toast (on sign-out: they were about the session that ended). */
  clear(): void;
}

export const ToastContext = createContext<ToastApi | null>(null);

/**
 * Where toasts may go: `overlay`, an open dialog or preview (the innermost one opened last wins);
 * `page`, the main pane's own strip under the view, used when no overlay is open.
 */
export type ToastPlaceKind = 'overlay' | 'page';

/**
 * Lets an open dialog (or the page) give the toasts a place of their own, in the flow beside
 * its controls rather than over them: call it with that element; it returns the function that
 * gives the place back.
 */
export type ToastHostRegistry = (host: HTMLElement, kind?: ToastPlaceKind) => () => void;

export const ToastHostContext = createContext<ToastHostRegistry | null>(null);

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast needs a <ToastProvider>');
  return api;
}
