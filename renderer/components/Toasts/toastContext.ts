import { createContext, useContext } from 'react';

export type ToastKind = 'error' | 'success' | 'info';

export interface ToastInput {
  kind: ToastKind;
  title: string;
  /** Second line: the daemon's message, a link… */
  detail?: string;
  /** Keeps the toast until dismissed (errors and links a person may want to read). */
  sticky?: boolean;
}

export interface Toast extends ToastInput {
  id: number;
}

export interface ToastApi {
  show(toast: ToastInput): number;
  error(title: string, detail?: string): number;
  success(title: string, detail?: string): number;
  dismiss(id: number): void;
}

export const ToastContext = createContext<ToastApi | null>(null);

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast needs a <ToastProvider>');
  return api;
}
