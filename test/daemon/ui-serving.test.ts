/**
 * The web UI served like a production site (issue 28, item 4; docs/explorer.md, "How the UI is
 * served"): a real daemon on a real port serving the built renderer (renderer/dist, built by the
 * tests' own `vite build` when stale). Brotli or gzip copies made at build time to clients that
 * accept them, the file itself otherwise, each with its own length and ETag and `Vary`; a year's
 * caching for hashed assets and `no-cache` for the page; 304s and ranges of the copy sent; no
 * source map to be had; languages in chunks of their own; unknown paths a 404, never the page.
 * Requests go through node:http, not fetch(), which would add Accept-Encoding and decode.
 */
import { mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedCodings, chooseVariant } from '../../daemon/http/static-variants.js';
import { REPO_ROOT, ensureRendererBuilt } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const DIST = path.join(REPO_ROOT, 'renderer', 'dist');
const IMMUTABLE = 'public, max-age=31536000, immutable';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request as a client sends it, with exactly `headers`; the body as it came (still encoded). */
function request(t: TestDaemon, target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${t.url}${target}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = (answer: Answer): Buffer =>
  answer.headers['content-encoding'] === 'br'
    ? zlib.brotliDecompressSync(answer.body)
    : answer.headers['content-encoding'] === 'gzip'
      ? zlib.gunzipSync(answer.body)
      : answer.body;

describe('the built UI, served like a production site', () => {
  let t: TestDaemon;
  let indexHtml: Buffer;
  let script: string; // the page's entry script, /assets/index-<hash>.js
  let firstLoad: string[]; // what index.html makes the browser fetch: the entry, its preloads, the CSS
  beforeAll(async () => {
    await ensureRendererBuilt();
    t = await startTestDaemon();
    indexHtml = await readFile(path.join(DIST, 'index.html'));
    firstLoad = [...indexHtml.toString().matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    script = firstLoad.find((asset) => /^\/assets\/index-[\w-]{8}\.js$/.test(asset))!;
    expect(script).toBeDefined();
  }, 180_000);
  afterAll(() => t?.close());

  it.each([
    ['br, gzip, deflate', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip', 'gzip'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['br;q=0, *', 'gzip'],
    ['identity', undefined],
    ['', undefined],
  ])('sends the entry script to Accept-Encoding "%s" as %s, with its own length and ETag', async (accept, coding) => {
    const answer = await request(t, script, accept ? { 'Accept-Encoding': accept } : {});
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(coding);
    expect(answer.headers.vary).toBe('Accept-Encoding');
    expect(answer.headers['content-type']).toMatch(/^text\/javascript/);
    expect(answer.headers['cache-control']).toBe(IMMUTABLE);
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    const original = await readFile(path.join(DIST, script));
    expect(decode(answer).equals(original)).toBe(true);
    // The copy sent is the one the build made, byte for byte.
    const stored = coding === undefined ? original : await readFile(path.join(DIST, `${script}.${coding === 'br' ? 'br' : 'gz'}`));
    expect(answer.body.equals(stored)).toBe(true);
  });

  it('gives each coding its own ETag, and a 304 only for the copy the client holds', async () => {
    const br = await request(t, script, { 'Accept-Encoding': 'br' });
    const gzip = await request(t, script, { 'Accept-Encoding': 'gzip' });
    const plain = await request(t, script);
    const tags = [br, gzip, plain].map((a) => a.headers.etag);
    expect(new Set(tags).size).toBe(3);
    expect(tags.every((tag) => /^"[^"]+"$/.test(tag!))).toBe(true); // strong: ranges may use them

    const again = await request(t, script, { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(br.headers.etag);
    expect(again.headers.vary).toBe('Accept-Encoding');
    expect(again.headers['cache-control']).toBe(IMMUTABLE);
    // A client holding the gzip copy that now accepts brotli gets the brotli copy, not a 304.
    expect((await request(t, script, { 'Accept-Encoding': 'br', 'If-None-Match': gzip.headers.etag! })).status).toBe(200);
    // If-Match names the copy too.
    const refused = await request(t, script, { 'Accept-Encoding': 'gzip', 'If-Match': br.headers.etag! });
    expect(refused.status).toBe(412);
    expect(refused.headers['cache-control']).toBe('no-store');
    // If-None-Match is decided before Range: the copy held is current, whatever range is asked.
    expect(
      (await request(t, script, { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag!, Range: 'bytes=99999999-' })).status,
    ).toBe(304);
  });

  it('sends a range of the copy it sends, and the whole copy when If-Range names another', async () => {
    const whole = await request(t, script, { 'Accept-Encoding': 'br' });
    const part = await request(t, script, { 'Accept-Encoding': 'br', Range: 'bytes=0-99' });
    expect(part.status).toBe(206);
    expect(part.headers['content-encoding']).toBe('br');
    expect(part.headers['content-range']).toBe(`bytes 0-99/${whole.body.length}`);
    expect(part.body.equals(whole.body.subarray(0, 100))).toBe(true);
    const stale = await request(t, script, { 'Accept-Encoding': 'br', Range: 'bytes=0-99', 'If-Range': '"something-else"' });
    expect(stale.status).toBe(200);
    expect(stale.body.equals(whole.body)).toBe(true);
    const beyond = await request(t, script, { 'Accept-Encoding': 'br', Range: `bytes=${whole.body.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${whole.body.length}`);
    expect(beyond.headers['cache-control']).toBe('no-store'); // a refusal is nothing to keep
  });

  it('serves the page compressed, never cached without asking, at / and at every deep link', async () => {
    const plain = await request(t, '/');
    // Folders named like a compressed copy or a map are pages like any other.
    for (const page of ['/', '/files/ana/Docs', '/files/ana/backup.tar.gz', '/files/ana/notes.map', '/trash', '/search?q=x', '/settings']) {
      const answer = await request(t, page, { 'Accept-Encoding': 'gzip, br' });
      expect(answer.status, page).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(answer.headers['content-encoding']).toBe('br');
      expect(answer.headers['cache-control']).toBe('no-cache');
      expect(answer.headers.vary).toBe('Accept-Encoding');
      expect(answer.headers['content-security-policy']).toMatch(/script-src 'self'/);
      expect(decode(answer).equals(plain.body)).toBe(true);
    }
    expect(plain.body.equals(indexHtml)).toBe(true);
    const revalidated = await request(t, '/files/ana', {
      'Accept-Encoding': 'br',
      'If-None-Match': (await request(t, '/', { 'Accept-Encoding': 'br' })).headers.etag!,
    });
    expect(revalidated.status).toBe(304);
    // Files of the public folder keep their names across builds: asked again each time.
    expect((await request(t, '/nimbus.svg')).headers['cache-control']).toBe('no-cache');
  });

  it('answers HEAD as GET, without the body', async () => {
    for (const coding of ['br', 'gzip', 'identity']) {
      const get = await request(t, script, { 'Accept-Encoding': coding });
      const head = await request(t, script, { 'Accept-Encoding': coding }, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const name of ['content-length', 'content-encoding', 'etag', 'content-type', 'vary', 'cache-control']) {
        expect(head.headers[name], `${coding} ${name}`).toEqual(get.headers[name]);
      }
    }
  });

  it('has a compressed copy of every script and style sheet, smaller than it', async () => {
    const assets = await readdir(path.join(DIST, 'assets'));
    const texts = assets.filter((name) => /\.(js|css)$/.test(name));
    expect(texts.length).toBeGreaterThan(5);
    for (const name of texts) {
      const size = (await readFile(path.join(DIST, 'assets', name))).length;
      // A chunk of one re-export line (~45 bytes: Rollup's facade for a shared module) packs no smaller; it is served as it is.
      if (size < 128) continue;
      for (const suffix of ['.br', '.gz']) expect(assets, `${name}${suffix}`).toContain(`${name}${suffix}`);
      expect((await readFile(path.join(DIST, 'assets', `${name}.br`))).length).toBeLessThan(size);
    }
  });

  it('keeps every chunk under Vite’s 500 kB warning', async () => {
    for (const name of (await readdir(path.join(DIST, 'assets'))).filter((n) => n.endsWith('.js'))) {
      expect((await readFile(path.join(DIST, 'assets', name))).length, name).toBeLessThan(500 * 1000);
    }
  });

  it('serves no source map, and names none', async () => {
    const files = await readdir(DIST, { recursive: true });
    expect(files.filter((name) => name.endsWith('.map'))).toEqual([]);
    for (const asset of firstLoad.filter((a) => a.endsWith('.js'))) {
      expect((await readFile(path.join(DIST, asset), 'utf8')).includes('sourceMappingURL'), asset).toBe(false);
      for (const byProduct of [`${asset}.map`, `${asset}.br`, `${asset}.gz`]) {
        const answer = await request(t, byProduct, { 'Accept-Encoding': 'br' });
        expect(answer.status, byProduct).toBe(404);
      }
    }
  });

  it('loads no language with the page: each is a chunk of its own, fetched when used', async () => {
    const firstLoadText = (await Promise.all(firstLoad.map((a) => readFile(path.join(DIST, a), 'utf8')))).join('\n');
    const assets = await readdir(path.join(DIST, 'assets'));
    for (const language of ['en', 'cs', 'es', 'ja', 'nb']) {
      // Long strings only: a short one (`Cancel`) may be in the code for other reasons.
      const settings = JSON.parse(await readFile(path.join(REPO_ROOT, 'renderer', 'i18n', 'locales', language, 'settings.json'), 'utf8'));
      const sample = String(settings.language.lead);
      expect(sample.length).toBeGreaterThan(20);
      expect(firstLoadText.includes(sample), `${language} in the first load`).toBe(false);
      const chunks = assets.filter((name) => new RegExp(`^${language}-[\\w-]{8}\\.js$`).test(name));
      expect(chunks, language).toHaveLength(1);
      expect((await readFile(path.join(DIST, 'assets', chunks[0]), 'utf8')).includes(sample)).toBe(true);
    }
  });

  it('answers an unknown path 404, never with the page; /metrics too', async () => {
    for (const target of ['/metrics', '/nothing', '/favicon.ico', '/assets/nothing-12345678.js', '/index.php']) {
      const tool = await request(t, target);
      expect(tool.body.equals(indexHtml), target).toBe(false);
      if (target === '/metrics') {
        // Another part of the daemon may answer /metrics (issue 28, item 3); never the UI does.
        expect(tool.headers['content-type'] ?? '').not.toMatch(/^text\/html/);
        continue;
      }
      expect(tool.status, target).toBe(404);
      expect(JSON.parse(tool.body.toString())).toMatchObject({ code: 'route_not_found' });
      // A browser gets a small page saying so.
      const browser = await request(t, target, { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
      expect(browser.status).toBe(404);
      expect(browser.headers['content-type']).toMatch(/^text\/html/);
      expect(browser.body.toString()).toContain('Page not found');
      expect(browser.body.toString()).not.toContain('<div id="root">');
    }
    // The API answers JSON, a browser's Accept or not.
    for (const headers of [{}, { Accept: 'text/html' }] as Record<string, string>[]) {
      const api = await request(t, '/api/unknown', headers);
      expect(api.status).toBe(404);
      expect(api.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(api.body.toString())).toMatchObject({ code: 'route_not_found' });
    }
  });
});

describe('choosing the copy to send', () => {
  it('reads Accept-Encoding: weights, refusals, *, and the order when they tie', () => {
    expect(acceptedCodings(undefined)).toEqual([]);
    expect(acceptedCodings('gzip, deflate, br')).toEqual(['br', 'gzip']);
    expect(acceptedCodings('gzip;q=0.8, br;q=0.4')).toEqual(['gzip', 'br']);
    expect(acceptedCodings('br;q=0, gzip')).toEqual(['gzip']);
    expect(acceptedCodings('*')).toEqual(['br', 'gzip']);
    expect(acceptedCodings('*;q=0.5, gzip;q=0')).toEqual(['br']);
    expect(acceptedCodings('x-gzip')).toEqual(['gzip']);
    expect(acceptedCodings('identity, deflate')).toEqual([]);
    expect(acceptedCodings('BR ; Q=1')).toEqual(['br']);
  });

  it('never sends a copy older than the file: a rebuild without the copies serves the file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-ui-'));
    try {
      const file = path.join(dir, 'app.js');
      await writeFile(file, 'x'.repeat(1000));
      await writeFile(`${file}.br`, zlib.brotliCompressSync('x'.repeat(1000)));
      const fresh = await chooseVariant(file, await stat(file), ['br', 'gzip']);
      expect([fresh.coding, fresh.file]).toEqual(['br', `${file}.br`]);
      // The file rebuilt after its copy was made (no copy step): the old copy is not it.
      const later = new Date(Date.now() + 60_000);
      await utimes(file, later, later);
      const rebuilt = await chooseVariant(file, await stat(file), ['br', 'gzip']);
      expect([rebuilt.coding, rebuilt.file]).toEqual([null, file]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
