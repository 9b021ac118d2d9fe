/** `nimbus daemon`: runs the daemon headless until SIGINT or SIGTERM. */
import type { ConfigInput } from '../config.js';
import { startDaemon } from '../daemon.js';
import type { RunningDaemon } from '../daemon-types.js';

export async function runDaemon(input: ConfigInput): Promise<number> {
  // Handlers go in before the listening line is printed: a supervisor that signals as soon
  // as it reads the line would otherwise kill the process before it could shut down cleanly.
  let stopRequested = false;
  let wake: () => void = () => undefined;
  let daemon: RunningDaemon | null = null;
  const stop = (signal: string) => {
    const line = `Nimbus: ${signal} received, shutting down…`;
    if (daemon) daemon.logger.info(line);
    else process.stderr.write(`${line}\n`);
    stopRequested = true;
    wake();
  };
  const onSigint = () => stop('SIGINT');
  const onSigterm = () => stop('SIGTERM');
  process.once('SIGINT', onSigint);
  process.once('SIGTERM', onSigterm);
  try {
    daemon = await startDaemon(input);
    process.stdout.write(`Nimbus daemon listening on ${daemon.url}\n`);
    if (!stopRequested) await new Promise<void>((resolve) => (wake = resolve));
    await daemon.close();
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
  }
}
