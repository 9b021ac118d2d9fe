#!/usr/bin/env node
// `npm start`. Runs the built app (dist/main/start.js); when the build failed or never ran,
// says in one line what failed and what to run, instead of a "Cannot find module" stack.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const entry = path.join(root, 'dist', 'main', 'start.js');
const failed = path.join(root, 'dist', 'build-failed.json');

function notBuilt() {
  if (existsSync(failed)) {
    try {
      const { step, error } = JSON.parse(readFileSync(failed, 'utf8'));
      return `Nimbus cannot start: its build failed at ${step} (${error}). Fix that, then run \`npm run build\` and \`npm start\` again.`;
    } catch {
      // An unreadable record says no more than a missing build.
    }
  }
  if (!existsSync(entry)) {
    return `Nimbus cannot start: it is not built (${path.relative(root, entry)} is missing). Run \`npm run build\` (or \`npm install\`), then \`npm start\` again.`;
  }
  return null;
}

const problem = notBuilt();
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exitCode = 1;
} else {
  await import(pathToFileURL(entry).href);
}
