import type { Logger } from '../daemon/index.js';

/**
 * Where the desktop shell's own lines go: the daemon's log (`<data-dir>/logs/nimbus.log`,
 * one file for the app) once the daemon runs in this process, the console before it starts
 * and after it stops. A packaged app has no visible console, so main.ts hands the logger
 * over as soon as it has one.
 */
let current: Logger | null = null;

export function useLogger(logger: Logger | null): void {
  current = logger?.child({ src: 'desktop' }) ?? null;
}

export const shellLog = {
  info(line: string): void {
    if (current) current.info(line);
    else console.log(line);
  },
  warn(line: string): void {
    if (current) current.warn(line);
    else console.warn(line);
  },
  error(line: string): void {
    if (current) current.error(line);
    else console.error(line);
  },
};
