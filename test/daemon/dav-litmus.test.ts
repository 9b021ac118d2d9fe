/**
 * Issue 26: litmus (Debian's `litmus` 0.13, the WebDAV conformance suite, written by others) run
 * for real against a real daemon: every test of basic, copymove, props, locks and http passes,
 * none skipped, no warning.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeUser, passwordOf } from '../helpers/accounts.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;
let workDir: string;
beforeAll(async () => {
  t = await startTestDaemon();
  await makeUser(t, 'litmus-user');
  // litmus writes its debug.log and child.log into the directory it runs in.
  workDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-litmus-'));
});
afterAll(async () => {
  await t.close();
  await rm(workDir, { recursive: true, force: true });
});

interface Summary {
  suite: string;
  run: number;
  passed: number;
  failed: number;
}

/** litmus's "<- summary for `basic': of 16 tests run: 16 passed, 0 failed." lines. */
function summaries(output: string): Summary[] {
  return [...output.matchAll(/<- summary for `(\w+)': of (\d+) tests run: (\d+) passed, (\d+) failed/g)].map((m) => ({
    suite: m[1],
    run: Number(m[2]),
    passed: Number(m[3]),
    failed: Number(m[4]),
  }));
}

it('passes every test of litmus basic, copymove, props, locks and http', { timeout: 240_000 }, async () => {
  const output = await new Promise<string>((resolve) => {
    execFile(
      'litmus',
      [`${t.url}/dav/litmus-user/`, 'litmus-user', passwordOf('litmus-user')],
      { cwd: workDir, env: { ...process.env, TESTS: 'basic copymove props locks http' }, timeout: 200_000 },
      // litmus exits non-zero when a test fails: its output says which, and is what is checked.
      (_err, stdout, stderr) => resolve(`${stdout}${stderr}`),
    );
  });
  const found = summaries(output);
  console.log(found.map((s) => `litmus ${s.suite}: ${s.passed}/${s.run} passed`).join('\n'));
  const failing = output.split('\n').filter((line) => /FAIL|SKIPPED|WARNING/.test(line));
  expect(failing, output).toEqual([]);
  expect(found.map((s) => s.suite)).toEqual(['basic', 'copymove', 'props', 'locks', 'http']);
  for (const s of found) expect(s.failed, `${s.suite}\n${output}`).toBe(0);
  expect(output).not.toMatch(/tests? (were|was) skipped/);
});
