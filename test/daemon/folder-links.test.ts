/**
 * Folder links (issue 27, docs/sharing.md "Folder links"): one link to a folder's whole tree,
 * browsed signed out, a file or the folder downloaded, and nothing above the shared folder
 * reachable by any path. Black-box over a real port; runs on db.json and PostgreSQL + S3.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api.js';
import { onDisk } from '../helpers/backend.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

const BROWSER = 'text/html,application/xhtml+xml,*/*;q=0.8';

describe('folder links', () => {
  let t: TestDaemon;
  let n = 0;

  beforeAll(async () => {
    t = await startTestDaemon();
    await createUser(t, 'ana');
    await upload(t, 'ana', 'secret.txt', 'the root is not shared');
  });
  afterAll(() => t.close());

  /** A new tree `sNN/` (a.txt, 2024/june/beach.jpg) beside `private-sNN/` (secret.txt), the first shared: its link's path. */
  async function sharedTree(options: Record<string, string | number | boolean> = {}): Promise<{ folder: string; link: string }> {
    const folder = `s${++n}`;
    for (const f of [`${folder}/2024/june`, `private-${folder}`])
      await api(t, 'folders.create', { username: 'ana', folder: f, parents: true });
    await upload(t, 'ana', 'a.txt', 'top file', { folder });
    await upload(t, 'ana', 'beach.jpg', 'not really a jpeg', { folder: `${folder}/2024/june` });
    await upload(t, 'ana', 'secret.txt', 'a sibling, not shared', { folder: `private-${folder}` });
    const res = await api(t, 'folders.share', { username: 'ana', folder, ...options });
    expect(res.status, res.text).toBe(201);
    return { folder, link: new URL(res.body.share.url).pathname };
  }
  const get = (link: string, query = '', headers: Record<string, string> = {}, method = 'GET') =>
    t.raw(method, `${link}${query}`, { key: null, headers });

  it('lists the shared folder and each folder below it as JSON, signed out', async () => {
    const { link } = await sharedTree();
    const top = await get(link);
    expect(top.status, top.text).toBe(200);
    expect(top.body).toMatchObject({ path: '', folders: [{ name: '2024' }], files: [{ name: 'a.txt', size: 8, mimeType: 'text/plain' }] });
    const june = await get(link, '?path=2024/june');
    expect(june.body).toMatchObject({ path: '2024/june', folders: [], files: [{ name: 'beach.jpg' }] });
    const file = await get(link, `?path=${encodeURIComponent('2024/june/beach.jpg')}&download=true`);
    expect(file.status).toBe(200);
    expect(file.text).toBe('not really a jpeg');
    expect(file.headers.get('Content-Disposition')).toMatch(/^attachment;.*beach\.jpg/);
  });

  it('reaches nothing above the shared folder by any path: 400 for a path that climbs, 404 for a name not in it', async () => {
    const { folder, link } = await sharedTree();
    for (const climb of [
      '..',
      '../secret.txt',
      `../private-${folder}/secret.txt`,
      '2024/../..',
      '/secret.txt',
      './a.txt',
      '2024//june',
      '%2e%2e',
      '..%2Fsecret.txt',
      '2024\\..\\..',
    ]) {
      const res = await t.raw('GET', `${link}?path=${climb}`, { key: null });
      expect(res.status, climb).toBe(400);
      expect(res.text).not.toContain('not shared');
    }
    for (const absent of ['secret.txt', `private-${folder}`, `private-${folder}/secret.txt`, '2024/july', 'A.TXT']) {
      const res = await get(link, `?path=${encodeURIComponent(absent)}`);
      expect(res.status, absent).toBe(404);
      expect(res.text).not.toContain('not shared');
    }
  });

  onDisk(() => {
    it('follows no link placed inside the shared folder, to a file or a folder outside it', async () => {
      const { folder, link } = await sharedTree();
      const dir = path.join(t.storageDir, 'ana', folder);
      await symlink(path.join(t.storageDir, 'ana', 'secret.txt'), path.join(dir, 'link.txt'));
      await symlink(path.join(t.storageDir, 'ana', `private-${folder}`), path.join(dir, 'elsewhere'));
      await mkdir(path.join(dir, 'real'));
      await writeFile(path.join(dir, 'real', 'x.txt'), 'made by another program');
      await new Promise((r) => setTimeout(r, 600)); // the watcher's settle time
      for (const p of ['link.txt', 'elsewhere', 'elsewhere/secret.txt']) expect((await get(link, `?path=${p}`)).status, p).toBe(404);
      const listed = await get(link);
      expect(JSON.stringify(listed.body)).not.toMatch(/link\.txt|elsewhere/);
      expect((await get(link, '?path=real/x.txt')).text).toBe('made by another program');
      const zip = await get(link, '?zip=true');
      expect(zip.status).toBe(200);
      expect(zip.text).not.toContain('secret.txt');
    });
  });

  it('zips the shared folder (or a folder in it) with nothing from outside it', async () => {
    const { folder, link } = await sharedTree();
    const whole = await get(link, '?zip=true');
    expect(whole.status).toBe(200);
    expect(whole.headers.get('Content-Type')).toBe('application/zip');
    expect(whole.headers.get('Content-Disposition')).toContain(`${folder}.zip`);
    const bytes = Buffer.from(await (await fetch(`${t.url}${link}?zip=true`)).arrayBuffer()).toString('latin1');
    expect(bytes).toContain(`${folder}/2024/june/beach.jpg`);
    expect(bytes).toContain(`${folder}/a.txt`);
    expect(bytes).not.toContain('secret.txt');
    const june = Buffer.from(await (await fetch(`${t.url}${link}?zip=true&path=2024/june`)).arrayBuffer()).toString('latin1');
    expect(june).toContain('june/beach.jpg');
    expect(june).not.toContain('a.txt');
    expect((await get(link, '?zip=true&path=a.txt')).status).toBe(400);
  });

  it('shows a browser the folder page: breadcrumbs from the shared folder down, files, and the zip', async () => {
    const { folder, link } = await sharedTree();
    const page = await get(link, '?path=2024/june', { Accept: BROWSER });
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Type')).toMatch(/^text\/html/);
    expect(page.headers.get('Content-Security-Policy')).toMatch(/default-src 'none'/);
    expect(page.text).toContain(`<a href="${link}">${folder}</a>`);
    expect(page.text).toContain(`<a href="${link}?path=2024">2024</a>`);
    expect(page.text).toContain('<li aria-current="page">june</li>');
    expect(page.text).toContain(`href="${link}?path=2024%2Fjune%2Fbeach.jpg&amp;download=true"`);
    expect(page.text).toContain(`href="${link}?path=2024%2Fjune&amp;zip=true"`);
    expect(page.text).not.toMatch(/private|secret|ana/);
  });

  it('follows its folder when it is renamed or moved, and is revoked when it is deleted', async () => {
    const { folder, link } = await sharedTree();
    await api(t, 'folders.rename', { username: 'ana', folder, newname: `${folder}-renamed` });
    expect((await get(link, '?path=a.txt')).text).toBe('top file');
    await api(t, 'folders.create', { username: 'ana', folder: `box-${folder}` });
    await api(t, 'folders.move', { username: 'ana', folder: `${folder}-renamed`, to: `box-${folder}` });
    expect((await get(link, '?path=2024/june/beach.jpg&download=true')).text).toBe('not really a jpeg');
    const listed = (await api(t, 'shares.list', { username: 'ana' })).body.shares.find((s) => new URL(s.url).pathname === link);
    expect(listed).toMatchObject({ kind: 'folder', folder: `box-${folder}/${folder}-renamed` });
    await api(t, 'folders.delete', { username: 'ana', folder: `box-${folder}` });
    expect((await get(link)).status).toBe(404);
  });

  it('asks for its password for the listing, every file and the zip; counts file downloads and zips against its limit', async () => {
    const { folder, link } = await sharedTree({ password: 'open sesame' });
    for (const q of ['', '?path=a.txt', '?zip=true']) expect((await get(link, q)).status, q).toBe(401);
    const unlocked = await t.raw('POST', link, {
      key: null,
      redirect: 'manual',
      headers: { 'Content-Type': 'application/json' },
      body: '{"password":"open sesame"}',
    });
    const cookie = /^(nimbus_share=[^;]+)/.exec(unlocked.headers.get('Set-Cookie')!)![1];
    expect((await get(link, '?path=a.txt', { Cookie: cookie })).text).toBe('top file');
    await api(t, 'shares.edit', { username: 'ana', folder, maxDownloads: 2 });
    // The file before the limit was set counted already; a listing and a HEAD are no downloads.
    expect((await get(link, '', { Cookie: cookie })).status).toBe(200);
    expect((await get(link, '?zip=true', { Cookie: cookie }, 'HEAD')).status).toBe(200);
    expect((await get(link, '?zip=true', { Cookie: cookie })).status).toBe(200);
    const info = (await api(t, 'shares.list', { username: 'ana' })).body.shares.find((s) => new URL(s.url).pathname === link)!;
    expect(info).toMatchObject({ downloads: 2, maxDownloads: 2, state: 'exhausted', hasPassword: true });
    for (const q of ['', '?path=a.txt', '?zip=true']) expect((await get(link, q, { Cookie: cookie })).status, q).toBe(404);
  });

  it('keeps one link per folder (409) and revokes it with folders.noshare', async () => {
    const { folder, link } = await sharedTree();
    expect((await api(t, 'folders.share', { username: 'ana', folder })).status).toBe(409);
    expect((await api(t, 'folders.noshare', { username: 'ana', folder })).status).toBe(201);
    expect((await get(link)).status).toBe(404);
    expect((await api(t, 'folders.noshare', { username: 'ana', folder })).status).toBe(404);
  });
});
