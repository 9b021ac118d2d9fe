import { describe, expect, it } from 'vitest';
import { electronChildEnv, findElectronDir, probeElectron, type ProbeEnv } from '../../main/launcher.js';

const ELECTRON_DIR = '/app/node_modules/electron';

/** A machine described by the files it has and its environment. */
function machine(files: Record<string, string>, overrides: Partial<ProbeEnv> = {}): ProbeEnv {
  return {
    env: { DISPLAY: ':0' },
    platform: 'linux',
    uid: 1000,
    electronDir: ELECTRON_DIR,
    exists: (path) => path in files,
    readFile: (path) => {
      if (!(path in files)) throw new Error(`ENOENT ${path}`);
      return files[path];
    },
    ...overrides,
  };
}

const INSTALLED = { [`${ELECTRON_DIR}/path.txt`]: 'electron', [`${ELECTRON_DIR}/dist/electron`]: '' };

describe('probeElectron', () => {
  it('finds an installed binary on a desktop', () => {
    expect(probeElectron(machine(INSTALLED))).toEqual({ ok: true, binary: `${ELECTRON_DIR}/dist/electron` });
  });

  it('says the binary is not installed when path.txt is missing (this machine: no download possible)', () => {
    const probe = probeElectron(machine({}));
    expect(probe).toEqual({ ok: false, reason: expect.stringMatching(/^Electron is not available \(binary not installed/) });
  });

  it('says the binary is not installed when path.txt points at nothing', () => {
    expect(probeElectron(machine({ [`${ELECTRON_DIR}/path.txt`]: 'electron' })).ok).toBe(false);
  });

  it('says so when the electron package itself is absent', () => {
    expect(probeElectron(machine({}, { electronDir: null }))).toEqual({ ok: false, reason: expect.stringContaining('not installed') });
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH, as require("electron") does', () => {
    const probe = probeElectron(
      machine({ '/opt/electron/electron': '' }, { env: { DISPLAY: ':0', ELECTRON_OVERRIDE_DIST_PATH: '/opt/electron' } }),
    );
    expect(probe).toEqual({ ok: true, binary: '/opt/electron/electron' });
  });

  it('needs a display on Linux', () => {
    const probe = probeElectron(machine(INSTALLED, { env: {} }));
    expect(probe).toEqual({ ok: false, reason: expect.stringContaining('no display') });
  });

  it('accepts Wayland as a display', () => {
    expect(probeElectron(machine(INSTALLED, { env: { WAYLAND_DISPLAY: 'wayland-0' } })).ok).toBe(true);
  });

  it('does not ask for DISPLAY on macOS or Windows', () => {
    expect(probeElectron(machine(INSTALLED, { env: {}, platform: 'darwin' })).ok).toBe(true);
    expect(probeElectron(machine(INSTALLED, { env: {}, platform: 'win32' })).ok).toBe(true);
  });

  it('does not try to run Chromium as root on Linux', () => {
    expect(probeElectron(machine(INSTALLED, { uid: 0 }))).toEqual({ ok: false, reason: expect.stringContaining('root') });
  });

  it('gives each reason as one line', () => {
    for (const probe of [
      probeElectron(machine({})),
      probeElectron(machine(INSTALLED, { env: {} })),
      probeElectron(machine(INSTALLED, { uid: 0 })),
    ]) {
      expect(probe.ok).toBe(false);
      if (!probe.ok) expect(probe.reason).not.toContain('\n');
    }
  });
});

describe('findElectronDir', () => {
  it('finds the installed electron package without running it', () => {
    expect(findElectronDir()).toMatch(/node_modules[\\/]electron$/);
  });
});

describe('electronChildEnv', () => {
  it('never starts Electron as plain Node', () => {
    const env = electronChildEnv({ ELECTRON_RUN_AS_NODE: '1', PATH: '/bin' });
    expect(env).toEqual({ PATH: '/bin' });
  });
});
