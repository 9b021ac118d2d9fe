// `npm run build` (and `npm install`'s prepare step): compiles the daemon and the shell,
// then builds the web UI. A failure is recorded in dist/build-failed.json, so that
// `npm start` can say in one line what failed and what to run instead of a stack trace.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const statusFile = path.join(root, 'dist', 'build-failed.json');

const steps = [
  { name: 'tsc (daemon and shell)', bin: require.resolve('typescript/bin/tsc'), args: ['-p', 'tsconfig.build.json'] },
  // Data files the compiled daemon reads beside its modules (tsc copies only code).
  { name: 'copy (data files)', copy: ['daemon/accounts/common-passwords.txt', 'daemon/accounts/common-passwords.LICENSE.txt'] },
  {
    name: 'vite (web UI)',
    bin: path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js'),
    args: ['build', '--config', 'renderer/vite.config.ts'],
  },
];

/** Copies each file to the same place under dist/. */
function copy(files) {
  try {
    for (const file of files) {
      const target = path.join(root, 'dist', file);
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(path.join(root, file), target);
    }
    return { code: 0, output: '' };
  } catch (err) {
    return { code: 1, output: `Error: ${err.message}` };
  }
}

/** Runs one step, passing its output through, and resolves with its exit code and output. */
function run(step) {
  if (step.copy) return Promise.resolve(copy(step.copy));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [step.bin, ...step.args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
      process.stderr.write(chunk);
    });
    child.on('error', (err) => resolve({ code: 1, output: `${output}\n${err.message}` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** The line a person needs: the first compiler error, else the last line that says something. */
function firstError(output) {
  const lines = output
    .split('\n')
    .map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').trim())
    .filter(Boolean);
  return lines.find((l) => /error TS\d+|\berror\b|Error:/.test(l)) ?? lines.at(-1) ?? 'no output';
}

rmSync(statusFile, { force: true });
for (const step of steps) {
  const { code, output } = await run(step);
  if (code !== 0) {
    mkdirSync(path.dirname(statusFile), { recursive: true });
    writeFileSync(statusFile, `${JSON.stringify({ step: step.name, error: firstError(output), at: new Date().toISOString() })}\n`);
    process.stderr.write(`\nNimbus build failed at ${step.name}: ${firstError(output)}\n`);
    process.exit(code);
  }
}
