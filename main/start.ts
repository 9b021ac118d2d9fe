/**
 * What `npm start` runs, in plain Node: the desktop app if Electron can start on this
 * machine, else the daemon with its web UI (docs/architecture.md#the-desktop-shell). No
 * top-level electron import: in plain Node the electron package is only a path to a
 * binary, if that.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { probeThisMachine } from './launcher.js';
import { closeOnSignals, runStart, spawnElectron } from './startup.js';

const mainScript = fileURLToPath(new URL('./main.js', import.meta.url));

try {
  const outcome = await runStart({
    probe: () => {
      const probe = probeThisMachine();
      if (probe.ok && !existsSync(mainScript)) {
        return { ok: false, reason: `The desktop app is not built (${mainScript} is missing; \`npm run build\` builds it)` };
      }
      return probe;
    },
    mainScript,
    runElectron: spawnElectron,
    loadDaemon: async () => (await import('../daemon/index.js')).startDaemon,
    print: (line) => console.log(line),
  });
  if (outcome.mode === 'electron') process.exitCode = outcome.exitCode;
  else closeOnSignals(outcome.daemon);
} catch (err) {
  console.error(`Nimbus could not start: ${(err as Error).message}`);
  process.exitCode = 1;
}
