#!/usr/bin/env node
// The `nimbus` command. Runs the compiled daemon (built by `npm install`'s prepare step).
// In a checkout whose TypeScript sources are newer than dist/ (or without dist/), runs the
// sources through tsx instead, so a stale build never answers for the code in front of you.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const compiled = path.join(root, 'dist', 'daemon', 'cli.js');

function newestSource() {
  let newest = 0;
  for (const dir of ['daemon', 'shared']) {
    const full = path.join(root, dir);
    if (!existsSync(full)) continue;
    for (const entry of readdirSync(full, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts'))
        newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

const useCompiled = existsSync(compiled) && statSync(compiled).mtimeMs >= newestSource();
let cli;
if (useCompiled) {
  cli = await import(new URL(`file://${compiled}`).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(new URL(`file://${path.join(root, 'daemon', 'cli.ts')}`).href);
}
// `nimbus paths | head`: a reader that stops early is no error of ours, and no reason for a stack trace.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(process.exitCode ?? 0);
});
try {
  process.exitCode = await cli.main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`nimbus: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
