/**
 * Issue 25, `nimbus migrate` carries trees both ways: an embedded installation with folders
 * three levels deep (files at each level, an empty folder, a trashed subtree, a trashed file
 * from a deep folder, a share link at depth) goes into PostgreSQL + S3 as folder rows with
 * their parents, comes back with `--to-data-dir` as directories along each path, and every
 * daemon on the way serves the same tree, byte for byte, the link included.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEmbedded } from '../../daemon/migrate/embedded-source.js';
import { childEnv, runCli } from '../helpers/child.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { clusterEnv } from '../helpers/engines.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The whole tree of a user as the API shows it: each folder path, each file with its size and sha256, and the trash. */
async function treeOf(t: TestDaemon, username: string): Promise<string[]> {
  const lines: string[] = [];
  const walk = async (folder: string | null) => {
    const where: Record<string, string> = folder === null ? { username } : { username, folder };
    const files = (await t.api('GET', folder === null ? '/api/files' : '/api/folders/files', where)).body.files as {
      name: string;
      size: number;
      shared: boolean;
    }[];
    for (const f of files) {
      const res = await fetch(`${t.url}/api/files/download?${new URLSearchParams({ ...where, file: f.name })}`, {
        headers: { 'API-Key': t.key },
      });
      expect(res.status, `${folder}/${f.name}`).toBe(200);
      lines.push(`${folder ?? ''}/${f.name} ${f.size}${f.shared ? ' shared' : ''} ${sha256(Buffer.from(await res.arrayBuffer()))}`);
    }
    const folders = (await t.api('GET', '/api/folders', where)).body.folders as { path: string; fileCount: number }[];
    for (const f of folders) {
      lines.push(`${f.path}/ ${f.fileCount}`);
      await walk(f.path);
    }
  };
  await walk(null);
  const trash = (await t.api('GET', '/api/trash', { username })).body.items as { kind: string; name: string; folder: string | null }[];
  for (const item of trash) lines.push(`trash: ${item.kind} ${item.folder ?? ''}/${item.name}`);
  return lines.sort();
}

async function migrate(args: string[], env: Record<string, string>) {
  const run = runCli(['migrate', ...args], childEnv(env));
  const code = await run.exited;
  return { code, out: run.stdout() + run.stderr() };
}

let source: TestDaemon;
let before: string[];
let shareUrl: string;
const dirs: string[] = [];

beforeAll(async () => {
  source = await startTestDaemon({ backend: 'embedded' });
  await createUser(source, 'ana');
  const ana = { username: 'ana' };
  for (const folder of ['a/b/c', 'a/b/empty', 'x/y/z'])
    expect((await source.api('POST', '/api/folders/create', { ...ana, folder, parents: 'true' })).status).toBe(201);
  const files: [string | null, string, string | Buffer][] = [
    [null, 'root.txt', 'at the root'],
    ['a', 'one.txt', 'level one'],
    ['a/b', 'two.txt', 'level two'],
    ['a/b', 'gone.txt', 'trashed from a/b'],
    ['a/b/c', 'three.bin', randomBytes(200_000)],
    ['x/y', 'y.txt', 'in the trashed subtree'],
    ['x/y/z', 'z.txt', 'deepest of the trashed subtree'],
  ];
  for (const [folder, file, body] of files)
    expect((await upload(source, 'ana', file, body, folder === null ? {} : { folder })).status).toBe(201);
  const shared = await source.api('POST', '/api/files/share', { ...ana, folder: 'a/b/c', file: 'three.bin' });
  shareUrl = new URL(shared.body.file.shareUrl as string).pathname;
  expect((await source.api('POST', '/api/files/delete', { ...ana, folder: 'a/b', file: 'gone.txt' })).status).toBe(200);
  expect((await source.api('POST', '/api/folders/delete', { ...ana, folder: 'x/y' })).status).toBe(200);
  // Seen after a restart: what the disk holds, as every daemon after it.
  await source.stop();
  await source.restart();
  before = await treeOf(source, 'ana');
  await source.stop();
}, 120_000);

afterAll(async () => {
  await source?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('nimbus migrate and a tree', () => {
  it('reads every depth of the installation, the trashed subtree too', async () => {
    const read = await readEmbedded(source.dataDir, source.storageDir);
    expect(read.folders.map((f) => `${f.name}${f.trashId ? ' (trash)' : ''}`).sort()).toEqual([
      'a',
      'a/b',
      'a/b/c',
      'a/b/empty',
      'x',
      'y (trash)',
      'y/z (trash)',
    ]);
    expect(read.files.map((f) => `${f.folder}:${f.name}`).sort()).toEqual([
      'a/b/c:three.bin',
      'a/b:gone.txt',
      'a/b:two.txt',
      'a:one.txt',
      'null:root.txt',
      'y/z:z.txt',
      'y:y.txt',
    ]);
  });

  it('carries a three-level tree into PostgreSQL + S3 and back, byte for byte, its share link and trash kept', async () => {
    const env = await clusterEnv();
    const into = await migrate(['--data-dir', source.dataDir], env);
    expect(into.code, into.out).toBe(0);
    expect(into.out).toContain('Verified: every count equal');

    // Back first (before a cluster daemon changes anything), into a new data directory an embedded daemon serves the same.
    const back = path.join(await mkdtemp(path.join(os.tmpdir(), 'nimbus-tree-back-')), 'data');
    dirs.push(path.dirname(back));
    const returned = await migrate(['--to-data-dir', back], env);
    expect(returned.code, returned.out).toBe(0);
    expect(returned.out).toContain('Verified: every count equal');
    const embedded = await startTestDaemon({ dataDir: back, backend: 'embedded' });
    try {
      expect(await treeOf(embedded, 'ana')).toEqual(before);
      expect((await embedded.raw('GET', shareUrl, { key: null })).status).toBe(200);
    } finally {
      await embedded.close();
    }

    const cluster = await startTestDaemon({ env, backend: 'embedded' });
    try {
      expect(await treeOf(cluster, 'ana')).toEqual(before);
      const link = await cluster.raw('GET', shareUrl, { key: null });
      expect(link.status).toBe(200);
      // The trashed subtree is the cluster's own now: restored whole into x.
      const items = (await cluster.api('GET', '/api/trash', { username: 'ana' })).body.items as { id: string; name: string }[];
      const subtree = items.find((i) => i.name === 'y')!;
      expect((await cluster.api('POST', '/api/trash/restore', { username: 'ana', id: subtree.id })).status).toBe(201);
      const z = await cluster.api('GET', '/api/files/download', { username: 'ana', folder: 'x/y/z', file: 'z.txt' });
      expect(z.text).toBe('deepest of the trashed subtree');
    } finally {
      await cluster.close();
    }
  }, 240_000);
});
