import type { NimbusBridge } from '../../shared/ipc';

declare global {
  interface Window {
    /** Present only inside the Electron shell (its preload exposes it). */
    nimbus?: NimbusBridge;
  }
}

/** The Electron bridge, or null in a plain browser. */
export function getBridge(): NimbusBridge | null {
  return typeof window !== 'undefined' && window.nimbus ? window.nimbus : null;
}
