#!/usr/bin/env node
// The `nimbus` command. Runs the compiled daemon (built by `npm install`'s prepare step);
// in a checkout without dist/, runs the TypeScript source through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/daemon/cli.js', import.meta.url);
let cli;
if (existsSync(compiled)) {
  cli = await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(new URL('../daemon/cli.ts', import.meta.url).href);
}
try {
  process.exitCode = await cli.main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`nimbus: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
