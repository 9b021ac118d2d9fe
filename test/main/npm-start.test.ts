/**
 * `npm start` after a build that failed or never ran: one line that says what failed and
 * what to run, never a "Cannot find module" stack (issue 10, item 2).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/child.js';

const roots: string[] = [];
afterEach(() => {
  for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A checkout with the launcher and the build script, and whatever else the test writes. */
function checkout(files: Record<string, string> = {}): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'nimbus-start-'));
  roots.push(root);
  for (const file of ['bin/start.js', 'build/build.mjs', 'tsconfig.json', 'tsconfig.build.json', 'package.json']) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    copyFileSync(path.join(ROOT, file), path.join(root, file));
  }
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const run = (root: string, script: string) =>
  spawnSync(process.execPath, [path.join(root, script)], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH, HOME: os.tmpdir() },
  });

describe('npm start', () => {
  it('is the launcher that checks the build', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe('node bin/start.js');
    expect(pkg.scripts.build).toBe('node build/build.mjs');
  });

  it('says in one line that Nimbus is not built, and what to run, when dist/ is missing', () => {
    const started = run(checkout(), 'bin/start.js');
    expect(started.status).toBe(1);
    expect(started.stdout).toBe('');
    expect(started.stderr.trim().split('\n')).toHaveLength(1);
    expect(started.stderr).toMatch(/not built .*dist\/main\/start\.js is missing.*npm run build/);
    expect(started.stderr).not.toMatch(/Cannot find module|\n\s+at /);
  });

  it('names the failed step and its first error after a failed build, even over an older dist/', () => {
    const root = checkout({
      'daemon/broken.ts': "import { thing } from 'a-package-that-is-not-installed';\nexport const x: number = thing;\n",
      'dist/main/start.js': "console.log('an old build');\n",
    });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    const built = run(root, 'build/build.mjs');
    expect(built.status).not.toBe(0);
    expect(built.stderr).toMatch(/Nimbus build failed at tsc/);

    const started = run(root, 'bin/start.js');
    expect(started.status).toBe(1);
    expect(started.stdout).not.toContain('an old build');
    const lines = started.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/build failed at tsc .*broken\.ts.*TS2307.*npm run build/);
  });
});
