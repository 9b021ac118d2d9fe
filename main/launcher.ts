import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Where `npm start` can run Electron, or why it cannot (one sentence, no full stop). */
export type ElectronProbe = { ok: true; binary: string } | { ok: false; reason: string };

export interface ProbeEnv {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** Effective user id (Linux/macOS); Chromium refuses to run as root without --no-sandbox. */
  uid?: number;
  /** The installed electron package's directory, or null when it is not installed. */
  electronDir: string | null;
  exists(path: string): boolean;
  readFile(path: string): string;
}

/** The electron package's directory, found without running its index.js. */
export function findElectronDir(from: string = import.meta.url): string | null {
  try {
    return dirname(createRequire(from).resolve('electron/package.json'));
  } catch {
    return null;
  }
}

/**
 * Finds the Electron binary the way `require('electron')` does (path.txt, or
 * ELECTRON_OVERRIDE_DIST_PATH), without its side effect: when the binary is missing,
 * `require('electron')` starts a download and prints its progress and stack traces.
 */
export function probeElectron(probe: ProbeEnv): ElectronProbe {
  const { env, platform, electronDir, exists, readFile } = probe;
  if (!electronDir) return { ok: false, reason: 'Electron is not available (the electron package is not installed)' };
  const pathFile = join(electronDir, 'path.txt');
  const relative = exists(pathFile) ? readFile(pathFile).trim() : '';
  let binary: string | null = null;
  if (env.ELECTRON_OVERRIDE_DIST_PATH) binary = join(env.ELECTRON_OVERRIDE_DIST_PATH, relative || 'electron');
  else if (relative) binary = join(electronDir, 'dist', relative);
  if (!binary || !exists(binary)) {
    return { ok: false, reason: 'Electron is not available (binary not installed; `npx install-electron` fetches it)' };
  }
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return { ok: false, reason: 'Electron cannot start (no display: neither DISPLAY nor WAYLAND_DISPLAY is set)' };
  }
  if (platform === 'linux' && probe.uid === 0) {
    return { ok: false, reason: 'Electron will not run as root (Chromium needs its sandbox)' };
  }
  return { ok: true, binary };
}

/** The probe for this machine and process. */
export function probeThisMachine(): ElectronProbe {
  return probeElectron({
    env: process.env,
    platform: process.platform,
    uid: process.getuid?.(),
    electronDir: findElectronDir(),
    exists: existsSync,
    readFile: (path) => readFileSync(path, 'utf8'),
  });
}

/** The environment for the Electron child: never in Node mode, whatever the parent had. */
export function electronChildEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const childEnv = { ...env };
  delete childEnv.ELECTRON_RUN_AS_NODE;
  return childEnv;
}
