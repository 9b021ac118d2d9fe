/**
 * Uploaded role badges (issue 29, shared/badges.ts): an admin's picture, typed by its bytes,
 * at most 64 KiB, kept in the store and served under /badges/uploaded/ with a year's cache and
 * the inert CSP; a role's badge is optional.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BADGE_UPLOAD_MAX_BYTES } from '../../shared/badges.js';
import { signIn } from '../helpers/api.js';
import { createUser, readDb, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;
beforeAll(async () => {
  t = await startTestDaemon();
  await createUser(t, 'ana');
});
afterAll(() => t.close());

const picture = (background: string) => sharp({ create: { width: 24, height: 24, channels: 3, background } });
const uploadBadge = (body: BodyInit, headers: Record<string, string> = {}) =>
  t.raw('POST', '/api/role/badge', { body, headers: { 'Content-Type': 'application/octet-stream', ...headers } });

describe('uploading a badge picture', () => {
  it('keeps a PNG, JPEG or WebP and names it by its bytes, whatever the Content-Type says', async () => {
    for (const [type, bytes] of [
      ['png', await picture('#123').png().toBuffer()],
      ['jpg', await picture('#456').jpeg().toBuffer()],
      ['webp', await picture('#789').webp().toBuffer()],
    ] as const) {
      const res = await uploadBadge(bytes, { 'Content-Type': 'image/svg+xml' });
      expect(res.status, type).toBe(201);
      expect(res.body.badge).toMatch(new RegExp(`^/badges/uploaded/[0-9a-f]{32}\\.${type}$`));
      expect(res.body.url).toBe(`${t.url}${res.body.badge}`);
    }
  });

  it('refuses what is no such picture by its bytes: text called a PNG, an SVG, nothing', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    expect((await uploadBadge('not a picture', { 'Content-Type': 'image/png' })).body.code).toBe('unsupported_media_type');
    expect((await uploadBadge(svg, { 'Content-Type': 'image/svg+xml' })).status).toBe(415);
    expect((await uploadBadge('')).status).toBe(400);
  });

  it('refuses more than 64 KiB, by its declared length and by what arrives', async () => {
    const big = Buffer.alloc(BADGE_UPLOAD_MAX_BYTES + 1);
    (await picture('#abc').png().toBuffer()).copy(big);
    const declared = await uploadBadge(big);
    expect(declared.status).toBe(413);
    expect(declared.body.code).toBe('payload_too_large');
    // Chunked: no Content-Length to judge by, so the limit is counted as the bytes come.
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(big);
        controller.close();
      },
    });
    const chunked = await t.raw('POST', '/api/role/badge', { body: stream, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
    // Exactly the limit is fine.
    expect((await uploadBadge(big.subarray(0, BADGE_UPLOAD_MAX_BYTES))).status).toBe(201);
  });

  it('is for admins only: a user’s session or personal key is 403', async () => {
    const session = await signIn(t, 'ana');
    const bytes = await picture('#def').png().toBuffer();
    const bySession = await t.raw('POST', '/api/role/badge', { key: null, body: bytes, headers: session.headers });
    expect(bySession.status).toBe(403);
    expect(bySession.body.code).toBe('admin_only');
    const made = await t.raw('POST', '/api/keys/create', {
      key: null,
      headers: { ...session.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ label: 'mine', scope: 'write', password: 'password123' }),
    });
    expect(made.status).toBe(201);
    const byKey = await t.raw('POST', '/api/role/badge', { key: made.body.key, body: bytes });
    expect(byKey.status).toBe(403);
    expect(byKey.body.code).toBe('admin_only');
  });
});

describe('serving an uploaded badge', () => {
  it('answers the bytes with their type, an ETag, a year’s cache, the sandbox CSP and nosniff', async () => {
    const bytes = await picture('#0a0').png().toBuffer();
    const { badge } = (await uploadBadge(bytes)).body;
    const res = await fetch(`${t.url}${badge}`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await fetch(`${t.url}${badge}`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
  });

  it('answers 404 for a picture it does not have, or of another type', async () => {
    const { badge } = (await uploadBadge(await picture('#0b0').png().toBuffer())).body;
    expect((await fetch(`${t.url}${badge.replace(/\.png$/, '.jpg')}`)).status).toBe(404);
    expect((await fetch(`${t.url}/badges/uploaded/${'0'.repeat(32)}.png`)).status).toBe(404);
  });
});

describe('a role’s badge', () => {
  it('may be an uploaded picture: stored as its path, answered as a URL on the daemon', async () => {
    const { badge } = (await uploadBadge(await picture('#00c').png().toBuffer())).body;
    const res = await t.api('POST', '/api/role/create', { name: 'pictured', maxStorage: '1', badge });
    expect(res.status).toBe(201);
    expect(res.body.role.badge).toBe(`${t.url}${badge}`);
    const db = await readDb(t);
    expect(db.roles.find((role: { name: string }) => role.name === 'pictured').badge).toBe(badge);
  });

  it('may be none: left out on create or edit, it is an empty string (DaneeCloud’s shape)', async () => {
    const created = await t.api('POST', '/api/role/create', { name: 'plain', maxStorage: '1' });
    expect(created.status).toBe(201);
    expect(created.body.role.badge).toBe('');
    await t.api('POST', '/api/role/edit', { name: 'plain', newname: 'plain', maxStorage: '1', badge: '/badges/star.svg' });
    const edited = await t.api('POST', '/api/role/edit', { name: 'plain', newname: 'plain', maxStorage: '2' });
    expect(edited.status).toBe(201);
    expect(edited.body.role.badge).toBe('');
  });

  it('refuses a path that is no badge of this daemon, and an uploaded picture it does not have', async () => {
    const other = await t.api('POST', '/api/role/create', { name: 'x1', maxStorage: '1', badge: '/api/user/all' });
    expect(other.status).toBe(400);
    const missing = await t.api('POST', '/api/role/create', {
      name: 'x2',
      maxStorage: '1',
      badge: `/badges/uploaded/${'1'.repeat(32)}.png`,
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/no uploaded badge/);
  });

  it('offers every built-in badge, drawn by the daemon', async () => {
    for (const name of ['user', 'admin', 'team', 'guest', 'star', 'heart']) {
      const res = await fetch(`${t.url}/badges/${name}.svg`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    }
  });
});
