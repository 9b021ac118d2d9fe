/** The storage-marker check before any removal. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORAGE_MARKER } from '../../../daemon/storage/availability.js';
import { MarkerGuard } from '../../../daemon/storage/live/marker-guard.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-marker-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function guard() {
  const confirmed: string[][] = [];
  const unavailable: string[] = [];
  const g = new MarkerGuard<string>({
    storageDir: dir,
    batchMs: 10,
    unavailable: (reason) => unavailable.push(reason),
    confirm: async (batch, current) => {
      if (current()) confirmed.push(batch);
    },
    onError: (err) => {
      throw err;
    },
  });
  return { g, confirmed, unavailable };
}

describe('MarkerGuard', () => {
  it('confirms the removals of a batch together while the marker is there', async () => {
    await writeFile(path.join(dir, STORAGE_MARKER), '');
    const { g, confirmed, unavailable } = guard();
    g.queue('a');
    g.queue('b');
    g.queue(null);
    await expect.poll(() => confirmed).toEqual([['a', 'b']]);
    expect(unavailable).toEqual([]);
  });

  it('applies nothing when the marker is missing (an unmounted disk), and says why', async () => {
    const { g, confirmed, unavailable } = guard();
    g.queue('a');
    await expect.poll(() => unavailable).toHaveLength(1);
    expect(unavailable[0]).toContain(STORAGE_MARKER);
    expect(confirmed).toEqual([]);
  });

  it('drops what is queued when cleared', async () => {
    await writeFile(path.join(dir, STORAGE_MARKER), '');
    const { g, confirmed } = guard();
    g.queue('a');
    g.clear();
    await new Promise((r) => setTimeout(r, 50));
    expect(confirmed).toEqual([]);
    g.queue('b');
    await expect.poll(() => confirmed).toEqual([['b']]);
  });
});
