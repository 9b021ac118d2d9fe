import { spawn } from 'node:child_process';
import type { RunningDaemon } from '../daemon/index.js';
import { startDaemonWithFallback, type StartDaemon } from './daemonHost.js';
import { electronChildEnv, type ElectronProbe } from './launcher.js';

/** A child that exits non-zero this soon after launch never really started (missing libraries, GPU, …). */
export const EARLY_EXIT_MS = 5_000;

export type StartOutcome = { mode: 'electron'; exitCode: number } | { mode: 'daemon'; daemon: RunningDaemon };

export interface StartDeps {
  probe(): ElectronProbe;
  /** Absolute path of the built main process (dist/main/main.js). */
  mainScript: string;
  /** Runs Electron; resolves with how it ended, or rejects when it could not be spawned. */
  runElectron(binary: string, mainScript: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
  /** Loaded only when needed, so the Electron path never loads the daemon. */
  loadDaemon(): Promise<StartDaemon>;
  print(line: string): void;
}

/**
 * `npm start`: the desktop app when Electron can start here; otherwise one line saying
 * why, then the daemon with its web UI in this process.
 */
export async function runStart(deps: StartDeps): Promise<StartOutcome> {
  const probe = deps.probe();
  if (probe.ok) {
    try {
      const { code, signal, ms } = await deps.runElectron(probe.binary, deps.mainScript);
      if ((code !== 0 || signal) && !(signal === 'SIGINT' || signal === 'SIGTERM') && ms < EARLY_EXIT_MS) {
        return runDaemonInstead(deps, `Electron exited at start-up (${signal ?? `code ${code}`})`);
      }
      return { mode: 'electron', exitCode: code ?? 1 };
    } catch (err) {
      return runDaemonInstead(deps, `Electron could not start (${(err as Error).message})`);
    }
  }
  return runDaemonInstead(deps, probe.reason);
}

async function runDaemonInstead(deps: StartDeps, reason: string): Promise<StartOutcome> {
  deps.print(`${reason}; running the daemon with the web UI instead.`);
  const startDaemon = await deps.loadDaemon();
  const daemon = await startDaemonWithFallback(startDaemon, {}, deps.print);
  // The key stays out of the URL: terminal scrollback and logs are not a place for it.
  deps.print(
    `Nimbus is running: open ${daemon.url}/ in a browser and sign in: users with their password, the admin with “Use an API key” and the key \`npx nimbus key show\` prints. Ctrl+C stops it.`,
  );
  return { mode: 'daemon', daemon };
}

/** Spawns Electron on the main script, passing Ctrl+C and SIGTERM on to it. */
export function spawnElectron(binary: string, mainScript: string): ReturnType<StartDeps['runElectron']> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(binary, [mainScript], { stdio: 'inherit', env: electronChildEnv(process.env) });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    const cleanUp = () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    };
    child.once('error', (err) => {
      cleanUp();
      reject(err);
    });
    child.once('exit', (code, signal) => {
      cleanUp();
      resolve({ code, signal, ms: Date.now() - started });
    });
  });
}

/** Stops the daemon on Ctrl+C or SIGTERM; a second signal exits at once. */
export function closeOnSignals(daemon: RunningDaemon, exit: (code: number) => void = process.exit): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return exit(130);
    stopping = true;
    daemon.close().then(
      () => exit(0),
      (err: unknown) => {
        console.error(`Nimbus: error while stopping: ${(err as Error).message}`);
        exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
