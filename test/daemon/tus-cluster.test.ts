/**
 * Resumable uploads with several daemons (docs/uploads.md, "Backends"): two in-process daemons
 * on one PostgreSQL database and one bucket, spoken to with raw tus requests. Whichever daemon
 * a request reaches serves it: an upload created on A takes a whole part and a remainder
 * through B and is finished through A; its bytes go to the bucket as an S3 multipart upload in
 * parts of 8 MiB (larger for a very large file: ceil(length / 9000) rounded up to a MiB), the
 * tail of a PATCH past the last whole part kept in the database, both acknowledged (HEAD on
 * either daemon). A stale offset is 409 and an over-long body 413, declared or streamed past a
 * part, with nothing changed; a body cut off keeps what arrived. The quota held at creation is
 * seen by the other daemon (507), freed by a termination there or by expiry; the placed file
 * counts instead. The finished file is placed as files.upload places
 * one (listed on both, the same SHA-256, overwrite keeping a version, a taken name or a case
 * twin 409); another user's key reaches nothing of it; an empty upload is placed at creation.
 *
 * What B learns from A's commits to the index (a listing, a role) comes through PostgreSQL's
 * notifications: soon, not at once, so those are waited for. An upload's own state (its offset,
 * its hold) is the database's, and is asserted at once on the other daemon.
 */
import { ListMultipartUploadsCommand, ListPartsCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { codeOf, makeKey, makeUser, passwordOf, setRole, show, signIn, type CallOptions } from '../helpers/accounts.js';
import { hashDownload, MIB } from '../helpers/big-transfers.js';
import { bucketOf, eventually, type Bucket } from '../helpers/cluster.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';
import { clusterEnv } from '../helpers/engines.js';
import { create, head, locationOf, metadata, OCTETS, patch, terminate, TUS } from '../helpers/tus.js';

const PART = 8 * MIB;
/** Two of these do not fit a 1 MiB quota, one does. */
const KB700 = 700_000;
const bytes = (n: number, fill = 97) => Buffer.alloc(n, fill);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Two daemons on one database and bucket (`embedded` keeps the helper from making each its own). */
async function twoDaemons(extra: Record<string, string> = {}): Promise<{ a: TestDaemon; b: TestDaemon; bucket: Bucket }> {
  const env = { ...(await clusterEnv()), ...extra };
  const a = await startTestDaemon({ env, backend: 'embedded' });
  const b = await startTestDaemon({ env, backend: 'embedded' });
  return { a, b, bucket: bucketOf(env) };
}

/** The acknowledged offset a daemon answers to HEAD (which must be 200). */
async function offsetOn(t: TestDaemon, location: string, options: CallOptions = {}): Promise<number> {
  const res = await head(t, location, options);
  if (res.status !== 200) throw new Error(`HEAD ${location} on port ${t.port}: ${res.status}`);
  return Number(res.headers['upload-offset']);
}

/** The files a daemon lists in a user's folder (the root without one): name → size. */
async function listed(t: TestDaemon, username: string, folder?: string): Promise<Map<string, number>> {
  const res = await t.api('GET', '/api/files', folder ? { username, folder } : { username });
  if (res.status !== 200) throw new Error(`listing ${username}: ${res.status} ${res.text}`);
  return new Map((res.body.files as { name: string; size: number }[]).map((f) => [f.name, f.size]));
}

/** Waits until `t` lists `file` with `size` bytes (another daemon placed it: its notification). */
function listedWith(t: TestDaemon, username: string, file: string, size: number, folder?: string): Promise<true> {
  return eventually(`port ${t.port} lists ${file} (${size} bytes)`, async () => (await listed(t, username, folder)).get(file) === size);
}

/** The SHA-256 and length of a file downloaded through `t`. */
async function downloaded(t: TestDaemon, username: string, file: string, folder?: string): Promise<{ sha256: string; bytes: number }> {
  const query = new URLSearchParams(folder ? { username, file, folder } : { username, file });
  const res = await fetch(`${t.url}/api/files/download?${query}`, { headers: { 'API-Key': t.key } });
  if (res.status !== 200) throw new Error(`downloading ${file} through port ${t.port}: ${res.status} ${await res.text()}`);
  return hashDownload(res);
}

/** The bucket's open (neither completed nor aborted) multipart uploads: UploadId → Key. */
async function openMultiparts(bucket: Bucket): Promise<Map<string, string>> {
  const open = new Map<string, string>();
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  for (;;) {
    const page = await bucket.client.send(
      new ListMultipartUploadsCommand({ Bucket: bucket.name, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
    );
    for (const u of page.Uploads ?? []) open.set(u.UploadId!, u.Key!);
    if (!page.IsTruncated) return open;
    keyMarker = page.NextKeyMarker;
    uploadIdMarker = page.NextUploadIdMarker;
  }
}

/** The multipart uploads opened since `before` was taken. */
async function openedSince(bucket: Bucket, before: Map<string, string>): Promise<{ uploadId: string; key: string }[]> {
  return [...(await openMultiparts(bucket))].filter(([id]) => !before.has(id)).map(([uploadId, key]) => ({ uploadId, key }));
}

/** The sizes of a multipart upload's parts, in order. */
async function partSizes(bucket: Bucket, open: { uploadId: string; key: string }): Promise<number[]> {
  const res = await bucket.client.send(new ListPartsCommand({ Bucket: bucket.name, Key: open.key, UploadId: open.uploadId }));
  return (res.Parts ?? []).sort((x, y) => x.PartNumber! - y.PartNumber!).map((p) => p.Size!);
}

/**
 * A PATCH whose body is written piece by piece, each handed to the kernel before the next:
 * chunked (its length known only as it streams) unless `declared` gives a Content-Length.
 * With `cut`, the connection is destroyed once every piece is written (a client gone mid-body:
 * what it wrote still reaches the daemon, then the end of the connection). Resolves with the
 * status, or null when cut.
 */
function piecewisePatch(
  t: TestDaemon,
  location: string,
  offset: number,
  pieces: Buffer[],
  options: { declared?: number; cut?: boolean } = {},
): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...TUS, ...OCTETS, 'Upload-Offset': String(offset), 'API-Key': t.key };
    if (options.declared !== undefined) headers['Content-Length'] = String(options.declared);
    let answered = false;
    const req = http.request({ host: '127.0.0.1', port: t.port, method: 'PATCH', path: location, headers, agent: false }, (res) => {
      answered = true;
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    // Once answered (a 413 before the body ended), the daemon may stop reading: writes may fail.
    req.on('error', (err) => (options.cut ? resolve(null) : answered ? undefined : reject(err)));
    void (async () => {
      for (const piece of pieces) {
        if (answered || req.destroyed) return;
        await new Promise<void>((done, fail) => req.write(piece, (err) => (err ? fail(err) : done())));
      }
      if (options.cut) {
        req.destroy();
        resolve(null);
      } else req.end();
    })().catch(() => undefined);
  });
}

/** `data` from `start` to `end` in 1 MiB pieces. */
const piecesOf = (data: Buffer, start: number, end: number): Buffer[] =>
  Array.from({ length: Math.ceil((end - start) / MIB) }, (_, i) => data.subarray(start + i * MIB, Math.min(end, start + (i + 1) * MIB)));

/** Waits until `t` knows `username` (and their role, when given): another daemon made them. */
function knows(t: TestDaemon, username: string, role?: string): Promise<true> {
  return eventually(`port ${t.port} knows ${username}${role ? ` as ${role}` : ''}`, async () => {
    const res = await t.api('GET', '/api/user', { username });
    return res.status === 200 && (role === undefined || JSON.stringify(res.body).includes(`"${role}"`));
  });
}

describe('resumable uploads on two daemons (PostgreSQL + S3)', () => {
  let a: TestDaemon;
  let b: TestDaemon;
  let bucket: Bucket;

  beforeAll(async () => {
    ({ a, b, bucket } = await twoDaemons());
    const role = await a.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: 'https://example.com/s.png' });
    expect(role.status, role.text).toBe(201);
    const unlimited = await a.api('POST', '/api/role/create', { name: 'unlimited', maxStorage: '-1', badge: 'https://example.com/u.png' });
    expect(unlimited.status, unlimited.text).toBe(201);
    for (const name of ['ana', 'bob', 'dee', 'tiny', 'huge']) await makeUser(a, name);
    await setRole(a, 'tiny', 'small');
    await setRole(a, 'huge', 'unlimited');
    for (const name of ['ana', 'bob', 'dee']) await knows(b, name);
    await knows(b, 'tiny', 'small');
    await knows(b, 'huge', 'unlimited');
  }, 120_000);

  afterAll(async () => {
    bucket?.close();
    await a?.close();
    await b?.close();
  });

  it('(a) created on A, a whole part and a remainder through B, finished through A: listed on B with the same SHA-256', async () => {
    const data = randomBytes(21 * MIB);
    const meta = { username: 'ana', filename: 'spread.bin' };
    const before = await openMultiparts(bucket);

    const created = await create(a, meta, data.length, data.subarray(0, 3 * MIB));
    const location = locationOf(created);
    expect(location).toMatch(/^\/api\/uploads\/[0-9a-f]{32}$/);
    expect(created.headers['upload-offset']).toBe(String(3 * MIB));
    expect(await offsetOn(b, location)).toBe(3 * MIB);

    // 3 MiB held + 9 MiB = one whole part of 8 MiB and a remainder of 4 MiB: all acknowledged.
    const second = await patch(b, location, 3 * MIB, data.subarray(3 * MIB, 12 * MIB));
    expect([second.status, second.headers['upload-offset']], show(second)).toEqual([204, String(12 * MIB)]);
    const onA = await head(a, location);
    expect([onA.status, onA.headers['upload-offset'], onA.headers['upload-length'], onA.headers['upload-metadata']]).toEqual([
      200,
      String(12 * MIB),
      String(21 * MIB),
      metadata(meta),
    ]);
    expect(onA.headers['upload-expires']).toBeTruthy();
    // In the bucket: one multipart upload with that one part; the remainder is not a part.
    const opened = await openedSince(bucket, before);
    expect(opened).toHaveLength(1);
    expect(await partSizes(bucket, opened[0])).toEqual([PART]);

    const last = await patch(a, location, 12 * MIB, data.subarray(12 * MIB));
    expect([last.status, last.headers['upload-offset']], show(last)).toEqual([204, String(21 * MIB)]);
    // Answered once placed: A serves it at once, and the multipart upload is completed.
    expect(await downloaded(a, 'ana', 'spread.bin')).toEqual({ sha256: sha256(data), bytes: data.length });
    expect((await openMultiparts(bucket)).has(opened[0].uploadId)).toBe(false);
    await listedWith(b, 'ana', 'spread.bin', data.length);
    expect(await downloaded(b, 'ana', 'spread.bin')).toEqual({ sha256: sha256(data), bytes: data.length });
  });

  it('(a2) a very large upload has larger parts: ceil(Upload-Length / 9000), rounded up to a MiB', async () => {
    // ceil(length / 9000) is 9 MiB and a byte: parts of 10 MiB.
    const length = 9000 * 9 * MIB + 1;
    const before = await openMultiparts(bucket);
    const first = randomBytes(11 * MIB);
    const created = await create(a, { username: 'huge', filename: 'huge.bin' }, length, first);
    expect([created.status, created.headers['upload-offset']], show(created)).toEqual([201, String(11 * MIB)]);
    expect(await offsetOn(b, locationOf(created))).toBe(11 * MIB);
    const opened = await openedSince(bucket, before);
    expect(opened).toHaveLength(1);
    expect(await partSizes(bucket, opened[0])).toEqual([10 * MIB]);
    expect((await terminate(b, locationOf(created))).status).toBe(204);
    await eventually(
      'the terminated upload’s multipart upload is aborted',
      async () => !(await openMultiparts(bucket)).has(opened[0].uploadId),
    );
  });

  it('(b) a stale or early offset is 409 and a body declared past Upload-Length 413, the offset unchanged on the other daemon', async () => {
    const data = randomBytes(20 * MIB);
    const location = locationOf(await create(a, { username: 'ana', filename: 'careful.bin' }, data.length, data.subarray(0, 3 * MIB)));
    expect((await patch(b, location, 3 * MIB, data.subarray(3 * MIB, 9 * MIB))).headers['upload-offset']).toBe(String(9 * MIB));

    // The offset the creation answered, sent again: stale.
    const stale = await patch(b, location, 3 * MIB, data.subarray(3 * MIB, 4 * MIB));
    expect([stale.status, codeOf(stale)], show(stale)).toEqual([409, 'upload_offset_mismatch']);
    expect(await offsetOn(a, location)).toBe(9 * MIB);
    const early = await patch(a, location, 10 * MIB, data.subarray(10 * MIB, 11 * MIB));
    expect([early.status, codeOf(early)], show(early)).toEqual([409, 'upload_offset_mismatch']);
    expect(await offsetOn(b, location)).toBe(9 * MIB);

    // Declared one byte too long: refused before a byte is taken.
    const declared = await patch(b, location, 9 * MIB, Buffer.concat([data.subarray(9 * MIB), bytes(1)]));
    expect([declared.status, codeOf(declared)], show(declared)).toEqual([413, 'payload_too_large']);
    expect(await offsetOn(a, location)).toBe(9 * MIB);
    expect(await offsetOn(b, location)).toBe(9 * MIB);

    const rest = await patch(b, location, 9 * MIB, data.subarray(9 * MIB));
    expect([rest.status, rest.headers['upload-offset']], show(rest)).toEqual([204, String(20 * MIB)]);
    expect(await downloaded(b, 'ana', 'careful.bin')).toEqual({ sha256: sha256(data), bytes: data.length });
    await listedWith(a, 'ana', 'careful.bin', data.length);
    expect((await downloaded(a, 'ana', 'careful.bin')).sha256).toBe(sha256(data));
  });

  it('(b1) a body streamed past Upload-Length (no Content-Length) is 413 with nothing changed, though it filled a part first', async () => {
    const data = randomBytes(20 * MIB);
    const location = locationOf(await create(a, { username: 'ana', filename: 'streamed.bin' }, data.length, data.subarray(0, 3 * MIB)));
    expect((await patch(b, location, 3 * MIB, data.subarray(3 * MIB, 9 * MIB))).headers['upload-offset']).toBe(String(9 * MIB));
    // 12 MiB of other bytes, chunked: too long only at its 12th MiB, after a second whole part
    // (to 16 MiB) could have gone to the bucket. None of it may count.
    expect(
      await piecewisePatch(
        a,
        location,
        9 * MIB,
        Array.from({ length: 12 }, () => bytes(MIB, 0x5a)),
      ),
    ).toBe(413);
    expect(await offsetOn(b, location)).toBe(9 * MIB);
    expect(await offsetOn(a, location)).toBe(9 * MIB);
    const rest = await patch(b, location, 9 * MIB, data.subarray(9 * MIB));
    expect([rest.status, rest.headers['upload-offset']], show(rest)).toEqual([204, String(20 * MIB)]);
    expect(await downloaded(b, 'ana', 'streamed.bin')).toEqual({ sha256: sha256(data), bytes: data.length });
  });

  it('(b2) a PATCH whose client goes away mid-body keeps what arrived (a part and a remainder); the rest goes on through the other daemon', async () => {
    const data = randomBytes(16 * MIB);
    const location = locationOf(await create(a, { username: 'ana', filename: 'cut.bin' }, data.length, data.subarray(0, 3 * MIB)));
    // 13 MiB declared, 9 MiB written, then the connection is gone.
    expect(await piecewisePatch(b, location, 3 * MIB, piecesOf(data, 3 * MIB, 12 * MIB), { declared: 13 * MIB, cut: true })).toBeNull();
    await vi.waitFor(async () => expect(await offsetOn(a, location)).toBe(12 * MIB), { timeout: 10_000, interval: 100 });
    expect(await offsetOn(b, location)).toBe(12 * MIB);
    const rest = await patch(a, location, 12 * MIB, data.subarray(12 * MIB));
    expect([rest.status, rest.headers['upload-offset']], show(rest)).toEqual([204, String(16 * MIB)]);
    await listedWith(b, 'ana', 'cut.bin', data.length);
    expect(await downloaded(b, 'ana', 'cut.bin')).toEqual({ sha256: sha256(data), bytes: data.length });
  });

  it('(c) the hold made on A is seen by B (507); a termination on B frees it at once; the placed file counts instead', async () => {
    const first = locationOf(await create(a, { username: 'tiny', filename: 'one.bin' }, KB700));
    const refused = await create(b, { username: 'tiny', filename: 'two.bin' }, KB700);
    expect([refused.status, codeOf(refused)], show(refused)).toEqual([507, 'quota_exceeded']);
    // files.upload on B sees the hold too.
    const plain = await b.api('POST', '/api/files/upload', { username: 'tiny', file: 'plain.bin' }, { body: new Uint8Array(KB700) });
    expect(plain.status, plain.text).toBe(507);

    expect((await terminate(b, first)).status).toBe(204);
    expect((await head(a, first)).status).toBe(404);
    expect((await head(b, first)).status).toBe(404);
    const second = await create(b, { username: 'tiny', filename: 'two.bin' }, KB700, bytes(100));
    expect(second.status, show(second)).toBe(201);

    // Finished through A: the file is placed, and counts where the hold did.
    const done = await patch(a, locationOf(second), 100, bytes(KB700 - 100));
    expect([done.status, done.headers['upload-offset']], show(done)).toEqual([204, String(KB700)]);
    const third = await create(b, { username: 'tiny', filename: 'three.bin' }, KB700);
    expect([third.status, codeOf(third)], show(third)).toEqual([507, 'quota_exceeded']);
    const fourth = await create(a, { username: 'tiny', filename: 'three.bin' }, KB700);
    expect([fourth.status, codeOf(fourth)], show(fourth)).toEqual([507, 'quota_exceeded']);
  });

  it('(d) overwrite=true replaces the file and keeps the old content as a version; a taken name is 409, a case twin 409', async () => {
    const old = randomBytes(MIB + 5);
    await upload(a, 'dee', 'doc.bin', old);
    await listedWith(b, 'dee', 'doc.bin', old.length);

    const taken = await create(b, { username: 'dee', filename: 'doc.bin' }, 10);
    expect([taken.status, codeOf(taken)], show(taken)).toEqual([409, 'file_exists']);
    const twin = await create(b, { username: 'dee', filename: 'DOC.bin' }, 10);
    expect([twin.status, codeOf(twin)], show(twin)).toEqual([409, 'name_case_conflict']);

    const fresh = randomBytes(10 * MIB);
    const meta = { username: 'dee', filename: 'doc.bin', overwrite: 'true' };
    const location = locationOf(await create(b, meta, fresh.length, fresh.subarray(0, 2 * MIB)));
    const last = await patch(a, location, 2 * MIB, fresh.subarray(2 * MIB));
    expect([last.status, last.headers['upload-offset']], show(last)).toEqual([204, String(fresh.length)]);
    expect(await downloaded(a, 'dee', 'doc.bin')).toEqual({ sha256: sha256(fresh), bytes: fresh.length });

    const versions = await eventually('B lists the kept version', async () => {
      const res = await b.api('GET', '/api/files/versions', { username: 'dee', file: 'doc.bin' });
      return res.status === 200 && res.body.versions.length > 0 ? (res.body.versions as { id: string; size: number }[]) : undefined;
    });
    expect(versions.map((v) => v.size)).toEqual([old.length]);
    const kept = await fetch(
      `${b.url}/api/files/versions/download?${new URLSearchParams({ username: 'dee', file: 'doc.bin', id: versions[0].id })}`,
      {
        headers: { 'API-Key': b.key },
      },
    );
    expect(kept.status).toBe(200);
    expect((await hashDownload(kept)).sha256).toBe(sha256(old));
    await listedWith(b, 'dee', 'doc.bin', fresh.length);
    expect((await downloaded(b, 'dee', 'doc.bin')).sha256).toBe(sha256(fresh));
  });

  it("(f) another user's key reaches none of an upload on either daemon (404); the owner's key and session reach it on both", async () => {
    const anaKey = await makeKey(a, { cookie: await signIn(a, 'ana', passwordOf('ana')) }, 'tus-writer', 'write');
    const bobKey = await makeKey(b, { cookie: await signIn(b, 'bob', passwordOf('bob')) }, 'tus-other', 'write');
    const data = randomBytes(12 * MIB);
    const before = await openMultiparts(bucket);
    const location = locationOf(
      await create(a, { username: 'ana', filename: 'own.bin' }, data.length, data.subarray(0, MIB), { key: anaKey }),
    );

    for (const t of [a, b]) {
      expect((await head(t, location, { key: bobKey })).status, `HEAD on port ${t.port}`).toBe(404);
      const patched = await patch(t, location, MIB, data.subarray(MIB, 2 * MIB), { key: bobKey });
      expect([patched.status, codeOf(patched)], show(patched)).toEqual([404, 'upload_not_found']);
      const ended = await terminate(t, location, { key: bobKey });
      expect([ended.status, codeOf(ended)], show(ended)).toEqual([404, 'upload_not_found']);
    }
    expect(await offsetOn(b, location, { key: anaKey })).toBe(MIB);

    // ana's session on B writes a whole part and a remainder.
    const cookie = await signIn(b, 'ana', passwordOf('ana'));
    const bySession = await patch(b, location, MIB, data.subarray(MIB, 10 * MIB), { cookie, origin: b.url });
    expect([bySession.status, bySession.headers['upload-offset']], show(bySession)).toEqual([204, String(10 * MIB)]);
    expect(await offsetOn(a, location, { key: anaKey })).toBe(10 * MIB);
    const opened = await openedSince(bucket, before);
    expect(opened).toHaveLength(1);

    // The owner's key ends it on B: gone on A too, its parts with it.
    expect((await terminate(b, location, { key: anaKey })).status).toBe(204);
    expect((await head(a, location)).status).toBe(404);
    await eventually(
      'the terminated upload’s multipart upload is aborted',
      async () => !(await openMultiparts(bucket)).has(opened[0].uploadId),
    );
    expect((await listed(a, 'ana')).has('own.bin')).toBe(false);
  });

  it('(g) an empty upload is placed at creation (201, Upload-Offset 0), into a folder, and listed on the other daemon', async () => {
    const folder = await a.api('POST', '/api/folders/create', { username: 'ana', folder: 'inbox' });
    expect(folder.status, folder.text).toBe(201);
    await eventually(
      'B knows the folder inbox',
      async () => (await b.api('GET', '/api/files', { username: 'ana', folder: 'inbox' })).status === 200,
    );
    const res = await create(b, { username: 'ana', folder: 'inbox', filename: 'empty.txt' }, 0);
    expect([res.status, res.headers['upload-offset']], show(res)).toEqual([201, '0']);
    expect(locationOf(res)).toMatch(/^\/api\/uploads\/[0-9a-f]{32}$/);
    expect((await listed(b, 'ana', 'inbox')).get('empty.txt')).toBe(0);
    await listedWith(a, 'ana', 'empty.txt', 0, 'inbox');
    expect((await downloaded(a, 'ana', 'empty.txt', 'inbox')).bytes).toBe(0);
  });
});

describe('(e) expiry with several daemons (NIMBUS_UPLOAD_EXPIRY_HOURS=0.0003, about 1.1 s)', () => {
  let a: TestDaemon;
  let b: TestDaemon;
  let bucket: Bucket;

  beforeAll(async () => {
    ({ a, b, bucket } = await twoDaemons({ NIMBUS_UPLOAD_EXPIRY_HOURS: '0.0003' }));
    const role = await a.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: 'https://example.com/s.png' });
    expect(role.status, role.text).toBe(201);
    for (const name of ['tiny', 'tock']) await makeUser(a, name);
    await setRole(a, 'tiny', 'small');
    await knows(b, 'tock');
    await knows(b, 'tiny', 'small');
  }, 120_000);

  afterAll(async () => {
    bucket?.close();
    await a?.close();
    await b?.close();
  });

  it('an unfinished upload past its expiry is 410 or 404 on HEAD and PATCH, on either daemon, and its hold is free again', async () => {
    const held = await create(a, { username: 'tiny', filename: 'slow.bin' }, KB700, bytes(10));
    const location = locationOf(held);
    const expires = Date.parse(String(held.headers['upload-expires']));
    expect(expires - Date.now()).toBeLessThan(2000);
    const refused = await create(b, { username: 'tiny', filename: 'blocked.bin' }, KB700);
    expect([refused.status, codeOf(refused)], show(refused)).toEqual([507, 'quota_exceeded']);
    // An upload with a whole part in the bucket, left unfinished too.
    const partial = await create(a, { username: 'tock', filename: 'partial.bin' }, 20 * MIB, randomBytes(9 * MIB));
    expect([partial.status, partial.headers['upload-offset']], show(partial)).toEqual([201, String(9 * MIB)]);
    expect((await openMultiparts(bucket)).size).toBe(1);

    // Past both expiries (Upload-Expires has whole seconds).
    const partialExpires = Date.parse(String(partial.headers['upload-expires']));
    await new Promise((resolve) => setTimeout(resolve, Math.max(expires, partialExpires) + 1500 - Date.now()));

    const patched = await patch(b, locationOf(partial), 9 * MIB, bytes(MIB));
    expect(
      [
        [404, 'upload_not_found'],
        [410, 'upload_expired'],
      ],
      show(patched),
    ).toContainEqual([patched.status, codeOf(patched)]);
    expect([404, 410]).toContain((await head(a, locationOf(partial))).status);
    expect([404, 410]).toContain((await head(b, location)).status);
    expect([404, 410]).toContain((await head(a, location)).status);

    const fits = await create(b, { username: 'tiny', filename: 'fits.bin' }, KB700);
    expect(fits.status, show(fits)).toBe(201);
  });

  it('an expired upload’s parts leave the bucket (its multipart upload aborted)', async () => {
    await eventually('no multipart upload left open', async () => (await openMultiparts(bucket)).size === 0, 15_000);
  });
});
