/**
 * Issue 25, the watcher at depth: directories created, filled or removed at any depth by
 * another program appear in the API and the event stream, each event carrying the folder path.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream, type EventStream } from '../helpers/events.js';

const WAIT = { timeout: 8000, interval: 25 };
let t: TestDaemon;
let stream: EventStream;

const namesIn = async (username: string, folder: string) => {
  const res = await t.api('GET', '/api/folders/files', { username, folder });
  return res.status === 200 ? (res.body.files as { name: string; folder: string }[]).map((f) => `${f.folder}:${f.name}`) : res.status;
};
const usedBytes = async (username: string) => (await t.api('GET', '/api/user', { username })).body.usage.usedBytes as number;
const eventsOf = (username: string) =>
  stream.messages.filter((m) => m.data.username === username).map((m) => `${m.event} ${m.data.folder}:${m.data.file}`);

beforeAll(async () => {
  t = await startTestDaemon();
  await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.index.watcher).toBe('inotify'), WAIT);
  stream = await openEventStream(t.url, { 'API-Key': t.key });
});
afterAll(async () => {
  await stream.close();
  await t.close();
});

describe('another program at depth', () => {
  it('makes and fills directories levels down: listed, counted, announced with the folder path', async () => {
    await createUser(t, 'ana');
    const home = path.join(t.storageDir, 'ana');
    // A file seen at the root first: the watch on the new user's directory is in place
    // (@parcel/watcher misses directories made within moments of their parent's creation).
    await writeFile(path.join(home, 'ready.txt'), '');
    await vi.waitFor(async () => expect((await t.api('GET', '/api/files', { username: 'ana' })).body.files).toHaveLength(1), WAIT);
    await mkdir(path.join(home, 'a', 'b', 'c'), { recursive: true });
    await writeFile(path.join(home, 'a', 'b', 'c', 'deep.txt'), '1234');
    await writeFile(path.join(home, 'a', 'b', 'mid.txt'), '12');
    await vi.waitFor(async () => expect(await namesIn('ana', 'a/b/c')).toEqual(['a/b/c:deep.txt']), WAIT);
    await vi.waitFor(async () => expect(await namesIn('ana', 'a/b')).toEqual(['a/b:mid.txt']), WAIT);
    await vi.waitFor(async () => expect(await usedBytes('ana')).toBe(6), WAIT);
    await vi.waitFor(
      () => expect(eventsOf('ana')).toEqual(expect.arrayContaining(['file.added a/b/c:deep.txt', 'folder.added a/b/c:null'])),
      WAIT,
    );
    // A later file deeper still, in a directory that already existed.
    await writeFile(path.join(home, 'a', 'b', 'c', 'late.txt'), 'xyz');
    await vi.waitFor(async () => expect(await namesIn('ana', 'a/b/c')).toEqual(['a/b/c:deep.txt', 'a/b/c:late.txt']), WAIT);
    await vi.waitFor(() => expect(eventsOf('ana')).toContain('file.added a/b/c:late.txt'), WAIT);
  });

  it('removes and renames directories levels down', async () => {
    const home = path.join(t.storageDir, 'ana');
    await rm(path.join(home, 'a', 'b', 'c'), { recursive: true });
    await vi.waitFor(async () => expect(await namesIn('ana', 'a/b/c')).toBe(404), WAIT);
    await vi.waitFor(async () => expect(await usedBytes('ana')).toBe(2), WAIT);
    await vi.waitFor(() => expect(eventsOf('ana')).toContain('folder.removed a/b/c:null'), WAIT);
    await rename(path.join(home, 'a', 'b'), path.join(home, 'a', 'bee'));
    await vi.waitFor(async () => expect(await namesIn('ana', 'a/bee')).toEqual(['a/bee:mid.txt']), WAIT);
    await vi.waitFor(async () => expect(await namesIn('ana', 'a/b')).toBe(404), WAIT);
    expect(await usedBytes('ana')).toBe(2);
  });

  it('revokes the links of files below a directory another program removed whole, so a new file there is not shared', async () => {
    await createUser(t, 'cy');
    const home = path.join(t.storageDir, 'cy');
    await writeFile(path.join(home, 'ready.txt'), '');
    await vi.waitFor(async () => expect((await t.api('GET', '/api/files', { username: 'cy' })).body.files).toHaveLength(1), WAIT);
    await mkdir(path.join(home, 'a', 'b'), { recursive: true });
    await writeFile(path.join(home, 'a', 'b', 'report.pdf'), 'pdf');
    await vi.waitFor(async () => expect(await namesIn('cy', 'a/b')).toEqual(['a/b:report.pdf']), WAIT);
    const res = await t.api('POST', '/api/files/share', { username: 'cy', folder: 'a/b', file: 'report.pdf' });
    expect(res.status).toBe(201);
    const url = res.body.file.shareUrl as string;
    const before = (await t.api('GET', '/api/dash')).body.shares as number;
    await rm(path.join(home, 'a'), { recursive: true });
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.shares).toBe(before - 1), { ...WAIT, timeout: 10_000 });
    await mkdir(path.join(home, 'a', 'b'), { recursive: true });
    await writeFile(path.join(home, 'a', 'b', 'report.pdf'), 'another pdf');
    await vi.waitFor(async () => expect(await namesIn('cy', 'a/b')).toEqual(['a/b:report.pdf']), WAIT);
    expect((await fetch(url)).status).toBe(404);
  });
});
