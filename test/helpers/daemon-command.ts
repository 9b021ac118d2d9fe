/**
 * The command that runs the daemon CLI in a child process: the compiled dist/ when it is
 * newer than every source file (as after `npm install`), else the TypeScript source via tsx
 * (slower to start, never stale).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

function newestSource(): number {
  let newest = 0;
  for (const dir of ['daemon', 'shared']) {
    for (const entry of readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

function compiledIsFresh(): boolean {
  try {
    return statSync(path.join(root, 'dist/daemon/cli.js')).mtimeMs >= newestSource();
  } catch {
    return false;
  }
}

/** argv (after the node binary) that runs `nimbus <args>`. */
export const daemonCommand = (args: string[]): string[] =>
  compiledIsFresh() ? [path.join(root, 'bin/nimbus.js'), ...args] : ['--import', 'tsx', path.join(root, 'test/helpers/run-daemon.ts'), ...args];
