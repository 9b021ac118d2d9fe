/**
 * Upload links, a folder's file drop (issue 27, docs/sharing.md "Upload links"): anyone with
 * the link puts files into the owner's folder, against the owner's quota, under names made
 * free, and reads nothing of it. Black-box over a real port; db.json and PostgreSQL + S3.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/api.js';
import { createUser, startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

const BROWSER = 'text/html,application/xhtml+xml,*/*;q=0.8';

describe('upload links', () => {
  let t: TestDaemon;
  let n = 0;

  beforeAll(async () => {
    t = await startTestDaemon();
    await createUser(t, 'ana');
  });
  afterAll(() => t.close());

  /** A new folder of ana's holding `private.txt`, with an upload link: the folder and the link's path. */
  async function dropBox(options: Record<string, string | number> = {}): Promise<{ folder: string; link: string }> {
    const folder = `inbox${++n}`;
    await api(t, 'folders.create', { username: 'ana', folder });
    await upload(t, 'ana', 'private.txt', 'the owner’s own file', { folder });
    const res = await api(t, 'folders.share', { username: 'ana', folder, upload: true, ...options });
    expect(res.status, res.text).toBe(201);
    expect(res.body.share.kind).toBe('upload');
    return { folder, link: new URL(res.body.share.url).pathname };
  }
  const drop = (link: string, file: string, body: string, headers: Record<string, string> = {}) =>
    t.raw('POST', `${link}/upload?file=${encodeURIComponent(file)}`, { key: null, headers, body });
  const names = async (folder: string) => (await api(t, 'folders.files', { username: 'ana', folder })).body.files.map((f) => f.name).sort();
  const content = async (folder: string, file: string) => (await api(t, 'files.download', { username: 'ana', folder, file })).text;

  it('puts a file in the owner’s folder, and a taken name becomes name (2).ext, then (3)', async () => {
    const { folder, link } = await dropBox();
    for (const body of ['one', 'two', 'three']) expect((await drop(link, 'notes.txt', body)).status).toBe(201);
    expect((await drop(link, 'private.txt', 'not over the owner’s')).body).toEqual({ msg: 'File uploaded', name: 'private (2).txt' });
    expect(await names(folder)).toEqual(['notes (2).txt', 'notes (3).txt', 'notes.txt', 'private (2).txt', 'private.txt']);
    expect(await content(folder, 'notes.txt')).toBe('one');
    expect(await content(folder, 'notes (3).txt')).toBe('three');
    expect(await content(folder, 'private.txt')).toBe('the owner’s own file');
    // A case twin is a taken name too: NOTES (2).TXT and (3) are notes (2).txt's and (3)'s twins.
    expect((await drop(link, 'NOTES.TXT', 'four')).body.name).toBe('NOTES (4).TXT');
  });

  it('gives eight uploads of one name at once eight names, each with its own bytes', async () => {
    const { folder, link } = await dropBox();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => drop(link, 'same.bin', `body ${i}`)));
    for (const a of answers) expect(a.status, a.text).toBe(201);
    const given = answers.map((a) => a.body.name as string);
    expect(new Set(given).size).toBe(8);
    for (const [i, name] of given.entries()) expect(await content(folder, name)).toBe(`body ${i}`);
  });

  it('takes a browser’s form: the file part’s own name, and a page that says it was sent', async () => {
    const { folder, link } = await dropBox();
    const page = await t.raw('GET', link, { key: null, headers: { Accept: BROWSER } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${link}/upload" enctype="multipart/form-data">`);
    expect(page.headers.get('Content-Security-Policy')).toContain("form-action 'self'");
    expect(page.text).not.toMatch(/private|inbox|ana/);
    const form = new FormData();
    form.append('file', new Blob(['from a browser']), 'holiday plan.txt');
    const sent = await t.raw('POST', `${link}/upload`, { key: null, headers: { Accept: BROWSER }, body: form });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.text).toContain('“holiday plan.txt” was sent.');
    expect(await content(folder, 'holiday plan.txt')).toBe('from a browser');
  });

  it('reads nothing: no listing, no file, no zip, whatever is asked', async () => {
    const { link } = await dropBox();
    const json = await t.raw('GET', link, { key: null });
    expect(json.body).toEqual({ upload: true });
    for (const q of ['?download=true', '?inline=true'])
      expect(JSON.stringify((await t.raw('GET', `${link}${q}`, { key: null })).body)).toBe('{"upload":true}');
    for (const q of ['?path=private.txt', '?zip=true']) expect((await t.raw('GET', `${link}${q}`, { key: null })).status).toBe(400);
  });

  it('counts against the owner’s quota: 507 and nothing kept when the file does not fit', async () => {
    await createUser(t, 'bo');
    await api(t, 'role.create', { name: 'tiny', maxStorage: 1, badge: 'https://example.com/b.png' });
    await api(t, 'user.role', { username: 'bo', name: 'tiny' });
    await api(t, 'folders.create', { username: 'bo', folder: 'in' });
    const res = await api(t, 'folders.share', { username: 'bo', folder: 'in', upload: true });
    const link = new URL(res.body.share.url).pathname;
    const full = await drop(link, 'big.bin', 'x'.repeat(2 * 1024 * 1024));
    expect(full.status).toBe(507);
    expect(full.body.code).toBe('quota_exceeded');
    expect((await api(t, 'folders.files', { username: 'bo', folder: 'in' })).body.files).toEqual([]);
    expect((await drop(link, 'small.txt', 'fits')).status).toBe(201);
  });

  it('asks for its password before taking a byte, and allows as many uploads as its limit', async () => {
    const { folder, link } = await dropBox({ password: 'open sesame', maxDownloads: 2 });
    const refused = await drop(link, 'a.txt', 'x');
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('share_password_required');
    const unlocked = await t.raw('POST', link, {
      key: null,
      redirect: 'manual',
      headers: { 'Content-Type': 'application/json' },
      body: '{"password":"open sesame"}',
    });
    const cookie = /^(nimbus_share=[^;]+)/.exec(unlocked.headers.get('Set-Cookie')!)![1];
    expect((await drop(link, 'a.txt', '1', { Cookie: cookie })).status).toBe(201);
    expect((await drop(link, 'b.txt', '2', { Cookie: cookie })).status).toBe(201);
    expect((await drop(link, 'c.txt', '3', { Cookie: cookie })).status).toBe(404);
    expect(await names(folder)).toEqual(['a.txt', 'b.txt', 'private.txt']);
  });

  it('takes no use for a body refused by its type alone (415)', async () => {
    const { link } = await dropBox({ maxDownloads: 1 });
    const form = await drop(link, 'a.txt', 'a=1', { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect((await drop(link, 'a.txt', 'the one')).status).toBe(201);
    expect((await drop(link, 'b.txt', 'one too many')).status).toBe(404);
  });

  it('refuses a name the API refuses, and an upload link to a folder link’s token', async () => {
    const { link } = await dropBox();
    for (const bad of ['../x', 'a/b', '.', ''])
      expect((await t.raw('POST', `${link}/upload?file=${encodeURIComponent(bad)}`, { key: null, body: 'x' })).status, bad).toBe(400);
    await api(t, 'folders.create', { username: 'ana', folder: 'public' });
    const view = await api(t, 'folders.share', { username: 'ana', folder: 'public' });
    expect((await drop(new URL(view.body.share.url).pathname, 'x.txt', 'x')).status).toBe(404);
  });
});
