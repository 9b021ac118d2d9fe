/**
 * How the shared engines are handed from vitest's globalSetup (the main process) to test
 * files (worker processes): the variable NIMBUS_TEST_ENGINES names the engines' home, where
 * the setup writes `<engine>.json` once that engine answers, or `<engine>.error` (with the
 * engine's log tail) when it could not start. Workers wait for either file.
 */
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { logTail, sleep } from './run.js';

export const ENGINES_VARIABLE = 'NIMBUS_TEST_ENGINES';
export type SharedEngineName = 'postgres' | 's3';

export interface PublishedPostgres {
  url: string;
}

export interface PublishedS3 {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Written through a rename so a reader never sees half a file. */
export async function publish(home: string, engine: SharedEngineName, result: { ok: object } | { error: string }): Promise<void> {
  const file = path.join(home, 'ok' in result ? `${engine}.json` : `${engine}.error`);
  await writeFile(`${file}.tmp`, 'ok' in result ? JSON.stringify(result.ok) : result.error);
  await rename(`${file}.tmp`, file);
}

const WAIT_MS = 180_000;

export async function waitForPublished<T>(home: string, engine: SharedEngineName): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const ok = await readFile(path.join(home, `${engine}.json`), 'utf8').catch(() => null);
    if (ok !== null) return JSON.parse(ok) as T;
    const error = await readFile(path.join(home, `${engine}.error`), 'utf8').catch(() => null);
    if (error !== null) throw new Error(`The shared ${engine} engine could not start:\n${error}`);
    if (Date.now() > deadline) {
      throw new Error(`The shared ${engine} engine (${home}) was not ready after ${WAIT_MS / 1000} s\n${await logTails(home)}`);
    }
    await sleep(50);
  }
}

/** The end of every log in a home (PostgreSQL's server.log, each Swift server's run/*.log). */
async function logTails(home: string): Promise<string> {
  const logs: string[] = [];
  for (const dir of await readdir(home).catch(() => [])) {
    const candidates = [path.join(home, dir, 'server.log')];
    for (const file of await readdir(path.join(home, dir, 'run')).catch(() => [])) {
      if (file.endsWith('.log')) candidates.push(path.join(home, dir, 'run', file));
    }
    for (const file of candidates) {
      const tail = await logTail(file, 10);
      if (tail) logs.push(`--- ${file}:\n${tail}`);
    }
  }
  return logs.join('\n');
}
