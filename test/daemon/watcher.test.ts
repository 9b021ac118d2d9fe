/** The live storage directory: files changed by other programs show up in the API. */
import { appendFile, mkdir, open, rename, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openEventStream } from '../helpers/events.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const WAIT = { timeout: 8000, interval: 25 };

let t: TestDaemon;
let userCount = 0;

/** A fresh user per test, so tests do not see each other's files. */
async function newUser(): Promise<string> {
  const username = `u${++userCount}`;
  const res = await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: 'secret123' });
  expect(res.status).toBe(201);
  return username;
}

async function listFiles(
  username: string,
  folder?: string,
): Promise<{ name: string; size: number; shared: boolean; shareUrl: string | null }[]> {
  const res = folder ? await t.api('GET', '/api/folders/files', { username, folder }) : await t.api('GET', '/api/files', { username });
  return res.body.files ?? [];
}

async function fileIn(username: string, name: string, folder?: string) {
  return (await listFiles(username, folder)).find((f) => f.name === name);
}

beforeAll(async () => {
  t = await startTestDaemon();
  await vi.waitFor(async () => {
    const dash = await t.api('GET', '/api/dash');
    expect(dash.body.index).toEqual({ state: 'ready', watcher: 'inotify' });
  }, WAIT);
});
afterAll(() => t.close());

describe('files changed outside Nimbus', () => {
  it('follows an add, an edit and a delete at the user root', async () => {
    const u = await newUser();
    const file = path.join(t.storageDir, u, 'notes.txt');
    await writeFile(file, 'hello');
    await vi.waitFor(async () => expect((await fileIn(u, 'notes.txt'))?.size).toBe(5), WAIT);
    await appendFile(file, ' world');
    await vi.waitFor(async () => expect((await fileIn(u, 'notes.txt'))?.size).toBe(11), WAIT);
    const user = await t.api('GET', '/api/user', { username: u });
    expect(user.body.usage.usedBytes).toBe(11);
    await unlink(file);
    await vi.waitFor(async () => expect(await fileIn(u, 'notes.txt')).toBeUndefined(), WAIT);
    expect((await t.api('GET', '/api/user', { username: u })).body.usage.usedBytes).toBe(0);
  });

  it('follows folders and the files in them', async () => {
    const u = await newUser();
    const dir = path.join(t.storageDir, u, 'Photos');
    await mkdir(dir);
    await vi.waitFor(async () => {
      const res = await t.api('GET', '/api/folders', { username: u });
      expect(res.body.folders.map((f: { name: string }) => f.name)).toEqual(['Photos']);
    }, WAIT);
    await writeFile(path.join(dir, 'a.jpg'), 'abc');
    await vi.waitFor(async () => expect((await fileIn(u, 'a.jpg', 'Photos'))?.size).toBe(3), WAIT);
    await writeFile(path.join(dir, 'a.jpg'), 'abcdef');
    await vi.waitFor(async () => expect((await fileIn(u, 'a.jpg', 'Photos'))?.size).toBe(6), WAIT);
    await unlink(path.join(dir, 'a.jpg'));
    await vi.waitFor(async () => expect(await fileIn(u, 'a.jpg', 'Photos')).toBeUndefined(), WAIT);
    await rm(dir, { recursive: true });
    await vi.waitFor(async () => expect((await t.api('GET', '/api/folders', { username: u })).body.folders).toEqual([]), WAIT);
  });

  it('sees the files of a folder copied in whole (cp -r)', async () => {
    const u = await newUser();
    const staging = path.join(t.dataDir, 'staging-album');
    await mkdir(staging);
    await Promise.all(['1.txt', '2.txt', '3.txt'].map((name) => writeFile(path.join(staging, name), name)));
    await rename(staging, path.join(t.storageDir, u, 'Album'));
    await vi.waitFor(async () => expect((await listFiles(u, 'Album')).map((f) => f.name)).toEqual(['1.txt', '2.txt', '3.txt']), WAIT);
  });

  it('shows a file written in chunks once, complete', async () => {
    const u = await newUser();
    const events = await openEvents();
    const file = path.join(t.storageDir, u, 'big.bin');
    const chunk = Buffer.alloc(64 * 1024, 7);
    const handle = await open(file, 'w');
    const seen: number[] = [];
    const watch = setInterval(() => void fileIn(u, 'big.bin').then((f) => f && seen.push(f.size)), 20);
    for (let i = 0; i < 6; i++) {
      await handle.write(chunk);
      await delay(60); // a slow writer: each pause is shorter than the 200 ms stability threshold
    }
    await handle.close();
    await vi.waitFor(async () => expect((await fileIn(u, 'big.bin'))?.size).toBe(6 * chunk.length), WAIT);
    clearInterval(watch);
    expect(seen.every((size) => size === 6 * chunk.length)).toBe(true);
    // A sentinel written afterwards: once its event arrives, any late event for big.bin would have too.
    await writeFile(path.join(t.storageDir, u, 'sentinel'), 'x');
    await vi.waitFor(() => expect(events.of(u, 'sentinel')).toContain('file.added'), WAIT);
    expect(events.of(u, 'big.bin')).toEqual(['file.added']);
    events.close();
  });

  it('announces the daemon’s own upload once, without an echo from the watcher', async () => {
    const u = await newUser();
    const events = await openEvents();
    const up = await t.api('POST', '/api/files/upload', { username: u, file: 'up.txt' }, { body: 'uploaded' });
    expect(up.status).toBe(201);
    await writeFile(path.join(t.storageDir, u, 'sentinel'), 'x');
    await vi.waitFor(() => expect(events.of(u, 'sentinel')).toContain('file.added'), WAIT);
    expect(events.of(u, 'up.txt')).toEqual(['file.added']);
    events.close();
  });

  it('follows a program acting on the names of the daemon’s own renames at once (their echoes meanwhile)', async () => {
    // The renames' echoes and the program's events come in one batch: the index ends as the disk is.
    const u = await newUser();
    const dir = path.join(t.storageDir, u);
    for (let i = 0; i < 20; i++) {
      expect((await t.api('POST', '/api/files/upload', { username: u, file: `a${i}` }, { body: 'daemon' })).status).toBe(201);
      expect((await t.api('POST', '/api/files/rename', { username: u, file: `a${i}`, newname: `b${i}` })).status).toBe(201);
      if (i % 2 === 0) await writeFile(path.join(dir, `a${i}`), `program ${i}`);
      else await rename(path.join(dir, `b${i}`), path.join(dir, `a${i}`));
    }
    await vi.waitFor(async () => {
      const files = Object.fromEntries((await listFiles(u)).map((f) => [f.name, f.size]));
      const expected: Record<string, number> = {};
      for (let i = 0; i < 20; i++) {
        if (i % 2 === 0) Object.assign(expected, { [`a${i}`]: `program ${i}`.length, [`b${i}`]: 6 });
        else expected[`a${i}`] = 6;
      }
      expect(files).toEqual(expected);
    }, WAIT);
  });
});

describe('shares and outside changes', () => {
  async function share(u: string, file: string): Promise<string> {
    const res = await t.api('POST', '/api/files/share', { username: u, file });
    expect(res.status).toBe(201);
    return res.body.file.shareUrl as string;
  }

  it('keeps the link through an editor’s atomic save (write a temp file, rename it over)', async () => {
    const u = await newUser();
    const dir = path.join(t.storageDir, u);
    await writeFile(path.join(dir, 'doc.txt'), 'v1');
    await writeFile(path.join(dir, 'gone.txt'), 'sentinel');
    await vi.waitFor(async () => expect(await fileIn(u, 'gone.txt')).toBeDefined(), WAIT);
    const url = await share(u, 'doc.txt');
    await share(u, 'gone.txt');
    const before = (await t.api('GET', '/api/dash')).body.shares;
    await writeFile(path.join(dir, '.doc.txt.swp'), 'version two');
    await rename(path.join(dir, '.doc.txt.swp'), path.join(dir, 'doc.txt'));
    // The same moment, another shared file is deleted: once its share is revoked, the
    // grace period of any removal the save caused has passed as well.
    await unlink(path.join(dir, 'gone.txt'));
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.shares).toBe(before - 1), { ...WAIT, timeout: 10_000 });
    const entry = await fileIn(u, 'doc.txt');
    expect(entry).toMatchObject({ size: 11, shared: true, shareUrl: url });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('version two');
  });

  it('revokes the link of a shared file deleted outside, and a new file of that name is not shared', async () => {
    const u = await newUser();
    const file = path.join(t.storageDir, u, 'report.pdf');
    await writeFile(file, 'pdf');
    await vi.waitFor(async () => expect(await fileIn(u, 'report.pdf')).toBeDefined(), WAIT);
    const url = await share(u, 'report.pdf');
    expect((await fetch(url)).status).toBe(200);
    const before = (await t.api('GET', '/api/dash')).body.shares;
    await unlink(file);
    await vi.waitFor(async () => expect((await fetch(url)).status).toBe(404), WAIT);
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.shares).toBe(before - 1), { ...WAIT, timeout: 10_000 });
    await writeFile(file, 'another pdf');
    await vi.waitFor(async () => expect(await fileIn(u, 'report.pdf')).toMatchObject({ shared: false, shareUrl: null }), WAIT);
    expect((await fetch(url)).status).toBe(404);
  });
});

describe('quota and outside copies', () => {
  it('marks a user over quota after an outside copy, refuses uploads with 507, deletes nothing', async () => {
    const u = await newUser();
    expect((await t.api('POST', '/api/role/create', { name: 'tiny', maxStorage: '1', badge: 'https://example.com/b.png' })).status).toBe(
      201,
    );
    expect((await t.api('POST', '/api/user/role', { username: u, name: 'tiny' })).status).toBe(201);
    const big = path.join(t.storageDir, u, 'big.iso');
    await writeFile(big, Buffer.alloc(1024 * 1024 + 1));
    await vi.waitFor(async () => expect((await t.api('GET', '/api/user', { username: u })).body.usage.overQuota).toBe(true), WAIT);
    const refused = await t.api('POST', '/api/files/upload', { username: u, file: 'small.txt' }, { body: 'x' });
    expect(refused.status).toBe(507);
    expect(await fileIn(u, 'big.iso')).toBeDefined();
    await unlink(big);
    await vi.waitFor(async () => expect((await t.api('GET', '/api/user', { username: u })).body.usage.overQuota).toBe(false), WAIT);
    expect((await t.api('POST', '/api/files/upload', { username: u, file: 'small.txt' }, { body: 'x' })).status).toBe(201);
  });
});

describe('directories that belong to no user', () => {
  it('ignores them, reports them in /api/dash and leaves their files alone', async () => {
    const ghost = path.join(t.storageDir, 'ghost');
    await mkdir(ghost);
    await writeFile(path.join(ghost, 'left-behind.txt'), 'still here');
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.orphans).toContain('ghost'), WAIT);
    const rescan = await t.api('POST', '/api/dash/rescan');
    expect(rescan.status).toBe(200);
    expect((await t.api('GET', '/api/dash')).body.orphans).toContain('ghost');
    expect((await t.api('GET', '/api/files', { username: 'ghost' })).status).toBe(404);
    await expect(readText(path.join(ghost, 'left-behind.txt'))).resolves.toBe('still here');
  });
});

async function readText(file: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(file, 'utf8');
}

interface EventLog {
  /** Event types seen so far for one file at the user's root. */
  of(username: string, file: string): string[];
  close(): void;
}

/** Reads GET /api/events in the background. */
async function openEvents(): Promise<EventLog> {
  const stream = await openEventStream(t.url, { 'API-Key': t.key });
  expect(stream.status).toBe(200);
  return {
    of: (username, file) =>
      stream.messages.filter((m) => m.data.username === username && m.data.folder === null && m.data.file === file).map((m) => m.data.type),
    close: () => void stream.close(),
  };
}
