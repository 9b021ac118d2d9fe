/**
 * DurableJSONFile is a lowdb adapter (lowdb's `Adapter` contract): the store holds it alone,
 * but lowdb's own `Low` drives it as it would its JSONFile, and it keeps the last version.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Low } from 'lowdb';
import { afterEach, describe, expect, it } from 'vitest';
import { DurableJSONFile } from '../../daemon/store/durable-json-file.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('DurableJSONFile', () => {
  it('is read as null before the first write, so the store can tell a first start', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-adapter-'));
    dirs.push(dir);
    expect(await new DurableJSONFile<{ n: number }>(path.join(dir, 'db.json')).read()).toBeNull();
  });

  it("works under lowdb's Low: written, read back, and the version it replaced kept as .bak", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-adapter-'));
    dirs.push(dir);
    const file = path.join(dir, 'db.json');
    const db = new Low(new DurableJSONFile<{ n: number }>(file), { n: 0 });
    db.data.n = 1;
    await db.write();
    db.data.n = 2;
    await db.write();
    const again = new Low(new DurableJSONFile<{ n: number }>(file), { n: 0 });
    await again.read();
    expect(again.data).toEqual({ n: 2 });
    expect(JSON.parse(await readFile(`${file}.bak`, 'utf8'))).toEqual({ n: 1 });
  });
});
