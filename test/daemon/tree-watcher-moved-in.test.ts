/**
 * Issue 25, a tree moved into the storage folder from outside it (same file system): the
 * watcher lists it at once, and what is written at any depth of it later shows at once too,
 * not at the next reconcile (@parcel/watcher watches the moved-in top directory only).
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_SUBTREE_WATCHES } from '../../daemon/storage/live/subtree-watches.js';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream, type EventStream } from '../helpers/events.js';

const WAIT = { timeout: 20_000, interval: 50 };
/** Well under the reconcile interval (10 minutes): what shows, the watcher found. */
const SOON = { timeout: 5_000, interval: 50 };
let t: TestDaemon;
let stream: EventStream;

const namesIn = async (username: string, folder: string, kind: 'files' | 'folders') => {
  const res = await t.api('GET', kind === 'files' ? '/api/folders/files' : '/api/folders', { username, folder });
  return ((res.body[kind] as { name: string }[] | undefined) ?? []).map((e) => e.name).sort();
};
const eventsOf = (username: string, from: number) =>
  stream.messages
    .slice(from)
    .filter((m) => m.data.username === username)
    .map((m) => `${m.event} ${m.data.folder}:${m.data.file}`);

beforeAll(async () => {
  t = await startTestDaemon();
  await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.index.watcher).toBe('inotify'), WAIT);
  stream = await openEventStream(t.url, { 'API-Key': t.key });
});
afterAll(async () => {
  await stream.close();
  await t.close();
});

describe('a tree moved in from outside the storage folder', () => {
  it('stays live at every depth: a file written two levels down and a folder made three levels down show at once', async () => {
    await createUser(t, 'ana');
    // A sibling of the storage directory: the same file system, so the move is one rename.
    const outside = path.join(path.dirname(t.storageDir), 'elsewhere');
    await mkdir(path.join(outside, 'trip', 'day1', 'photos'), { recursive: true });
    await mkdir(path.join(outside, 'trip', 'day2'), { recursive: true });
    await writeFile(path.join(outside, 'trip', 'notes.txt'), 'n');
    await writeFile(path.join(outside, 'trip', 'day1', 'photos', 'a.jpg'), 'a');

    await rename(path.join(outside, 'trip'), path.join(t.storageDir, 'ana', 'trip'));
    await vi.waitFor(async () => expect(await namesIn('ana', 'trip/day1/photos', 'files')).toEqual(['a.jpg']), WAIT);
    expect(await namesIn('ana', 'trip', 'folders')).toEqual(['day1', 'day2']);

    const from = stream.messages.length;
    await writeFile(path.join(t.storageDir, 'ana', 'trip', 'day1', 'new.txt'), 'later');
    await vi.waitFor(async () => expect(await namesIn('ana', 'trip/day1', 'files')).toEqual(['new.txt']), SOON);
    await vi.waitFor(() => expect(eventsOf('ana', from)).toContain('file.added trip/day1:new.txt'), SOON);

    await mkdir(path.join(t.storageDir, 'ana', 'trip', 'day1', 'photos', 'raw'));
    await vi.waitFor(async () => expect(await namesIn('ana', 'trip/day1/photos', 'folders')).toEqual(['raw']), SOON);
    await writeFile(path.join(t.storageDir, 'ana', 'trip', 'day1', 'photos', 'raw', 'b.raw'), 'b');
    await vi.waitFor(async () => expect(await namesIn('ana', 'trip/day1/photos/raw', 'files')).toEqual(['b.raw']), SOON);
    await writeFile(path.join(t.storageDir, 'ana', 'trip', 'day2', 'c.txt'), 'c');
    await vi.waitFor(async () => expect(await namesIn('ana', 'trip/day2', 'files')).toEqual(['c.txt']), SOON);

    // The top directory is watched by both subscriptions: still one event per change.
    await writeFile(path.join(t.storageDir, 'ana', 'trip', 'top.txt'), 't');
    await writeFile(path.join(t.storageDir, 'ana', 'after.txt'), '');
    await vi.waitFor(() => expect(eventsOf('ana', from)).toContain('file.added null:after.txt'), SOON);
    await vi.waitFor(() => expect(eventsOf('ana', from)).toContain('file.added trip:top.txt'), SOON);
    expect(eventsOf('ana', from).filter((e) => e === 'file.added trip:top.txt')).toHaveLength(1);
    expect(eventsOf('ana', from).filter((e) => e === 'file.added trip/day1:new.txt')).toHaveLength(1);
  });

  it('past the trees followed apart (the cap), starts the watch again: every tree moved in stays live', async () => {
    await createUser(t, 'bo');
    // The user's directory listed while still empty: each tree then arrives on its own.
    await writeFile(path.join(t.storageDir, 'bo', 'ready.txt'), '');
    await vi.waitFor(async () => expect((await t.api('GET', '/api/files', { username: 'bo' })).body.files).toHaveLength(1), WAIT);
    const outside = path.join(path.dirname(t.storageDir), 'elsewhere-bo');
    const trees = MAX_SUBTREE_WATCHES + 1;
    for (let i = 0; i < trees; i++) {
      await mkdir(path.join(outside, `t${i}`, 'day', 'deep'), { recursive: true });
      await rename(path.join(outside, `t${i}`), path.join(t.storageDir, 'bo', `t${i}`));
    }
    await vi.waitFor(async () => expect((await namesIn('bo', `t${trees - 1}/day`, 'folders')).length).toBe(1), WAIT);
    await vi.waitFor(async () => expect((await t.api('GET', '/api/folders', { username: 'bo' })).body.folders).toHaveLength(trees), WAIT);
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.index.watcher).toBe('inotify'), WAIT);

    // Which tree went past the cap depends on the order the watcher saw them in: every one is written to.
    for (let i = 0; i < trees; i++) await writeFile(path.join(t.storageDir, 'bo', `t${i}`, 'day', 'deep', 'x.txt'), 'x');
    await vi.waitFor(async () => {
      const folders = (await t.api('GET', '/api/folders', { username: 'bo' })).body.folders as { fileCount: number }[];
      expect(folders.filter((f) => f.fileCount === 1)).toHaveLength(trees);
    }, SOON);
  });
});
