/**
 * Run in a child process (inside a D-Bus session or none): starts the daemon on the data
 * directory given as argv[2] without NIMBUS_API_KEY, prints what the keychain code did as
 * JSON, and stops.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startDaemon } from '../../daemon/index.js';

const dataDir = process.argv[2];
const logs: string[] = [];
const started = Date.now();
const daemon = await startDaemon({ port: 0, dataDir, env: { ...process.env, NIMBUS_API_KEY: '' }, log: (line) => logs.push(line) });
const key = daemon.adminKey();
const result = {
  adminKey: key,
  logs,
  keyFile: existsSync(path.join(dataDir, 'admin.key')),
  keyInEnvironment: readFileSync('/proc/self/environ', 'latin1').includes(key),
  keyInArgv: readFileSync('/proc/self/cmdline', 'latin1').includes(key),
  ms: Date.now() - started,
};
await daemon.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
