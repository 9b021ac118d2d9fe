/**
 * What an upload's body may be (issue 22, item 10): the raw content (no type, octet-stream or
 * any ordinary media type), or a multipart/form-data form with exactly one file part, as
 * `curl -F` and a browser's FormData send it; other form encodings are a 415. A refused body
 * stores nothing, leaves no temp file or object, and changes no record.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser, snapshotState, startTestDaemon, storedBytes, storedNames, type TestDaemon } from '../helpers/daemon.js';
import { rawRequest } from '../helpers/raw-http.js';

const run = promisify(execFile);
let t: TestDaemon;
/** Bytes no text decoding keeps as they are: every byte value, CR LF and a boundary-like line among them. */
const BINARY = Buffer.concat([
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.from('\r\n--boundary\r\n\r\n'),
  Buffer.alloc(3000, 7),
]);

beforeAll(async () => {
  t = await startTestDaemon();
  await t.api('POST', '/api/role/create', { name: 'small', maxStorage: '1', badge: 'https://example.com/s.png' });
  await createUser(t, 'ana');
  await createUser(t, 'tiny');
  await t.api('POST', '/api/user/role', { username: 'tiny', name: 'small' });
  await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'docs' });
});
afterAll(() => t.close());

const uploadUrl = (params: Record<string, string>) => `${t.url}/api/files/upload?${new URLSearchParams(params)}`;

/** A multipart/form-data body built by hand, for the forms no client library sends. */
function form(boundary: string, parts: { headers: string[]; body: Buffer | string }[], closed = true): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    pieces.push(Buffer.from(`--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n`), Buffer.from(part.body), Buffer.from('\r\n'));
  }
  if (closed) pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

const filePart = (name: string, filename: string, body: Buffer | string) => ({
  headers: [`Content-Disposition: form-data; name="${name}"; filename="${filename}"`, 'Content-Type: application/octet-stream'],
  body,
});
const fieldPart = (name: string, value: string) => ({ headers: [`Content-Disposition: form-data; name="${name}"`], body: value });

/** Posts `body` with `contentType` to the upload of `params`; the answer and whether anything changed. */
async function postForm(params: Record<string, string>, contentType: string, body: Buffer) {
  const before = await snapshotState(t);
  const res = await t.api('POST', '/api/files/upload', params, { headers: { 'Content-Type': contentType }, body: new Uint8Array(body) });
  return { res, unchanged: async () => expect(await snapshotState(t)).toEqual(before) };
}

describe('multipart/form-data uploads', () => {
  it('curl -F file=@… stores exactly the file’s bytes, not the form around them', async () => {
    const source = path.join(os.tmpdir(), `nimbus-curl-${process.pid}.bin`);
    await writeFile(source, BINARY);
    const { stdout } = await run('curl', [
      '-s',
      '-S',
      '-w',
      '\n%{http_code}',
      '-H',
      `API-Key: ${t.key}`,
      '-F',
      `file=@${source}`,
      uploadUrl({ username: 'ana', file: 'photo.jpg' }),
    ]);
    const status = stdout.slice(stdout.lastIndexOf('\n') + 1);
    expect(status, stdout).toBe('201');
    expect(JSON.parse(stdout.slice(0, stdout.lastIndexOf('\n'))).file).toMatchObject({ name: 'photo.jpg', size: BINARY.length });
    expect((await storedBytes(t, 'ana', 'photo.jpg')).equals(BINARY)).toBe(true);
  });

  it('a browser’s FormData (any field name, other fields ignored) stores the file into the folder of the query', async () => {
    const data = new FormData();
    data.append('note', 'not a parameter');
    data.append('document', new Blob([BINARY], { type: 'image/png' }), 'ignored-name.png');
    data.append('folder', 'not-this-one');
    const res = await t.api('POST', '/api/files/upload', { username: 'ana', folder: 'docs', file: 'scan.png' }, { body: data });
    expect(res.status, res.text).toBe(201);
    expect(res.body.file).toMatchObject({ name: 'scan.png', folder: 'docs', size: BINARY.length });
    expect((await storedBytes(t, 'ana', 'docs/scan.png')).equals(BINARY)).toBe(true);
  });

  it('an empty file part stores an empty file', async () => {
    const data = new FormData();
    data.append('file', new Blob([]), 'empty.txt');
    const res = await t.api('POST', '/api/files/upload', { username: 'ana', file: 'empty.txt' }, { body: data });
    expect(res.status, res.text).toBe(201);
    expect((await storedBytes(t, 'ana', 'empty.txt')).length).toBe(0);
  });

  it('a form to a missing user or onto a taken name is refused as a raw body is, and the daemon keeps serving', async () => {
    const data = () => {
      const form = new FormData();
      form.append('file', new Blob(['content']), 'a.txt');
      return form;
    };
    expect((await t.api('POST', '/api/files/upload', { username: 'nobody', file: 'a.txt' }, { body: data() })).status).toBe(404);
    expect((await t.api('POST', '/api/files/upload', { username: 'ana', file: 'taken.txt' }, { body: data() })).status).toBe(201);
    const taken = await t.api('POST', '/api/files/upload', { username: 'ana', file: 'taken.txt' }, { body: data() });
    expect(taken.status, taken.text).toBe(409);
    expect((await t.api('GET', '/api/user', { username: 'ana' })).status).toBe(200);
  });

  it('a file part over the quota is a 507 and leaves nothing behind', async () => {
    const data = new FormData();
    data.append('file', new Blob([Buffer.alloc(2 * 1024 * 1024, 1)]), 'big.bin');
    const before = await snapshotState(t);
    const res = await t.api('POST', '/api/files/upload', { username: 'tiny', file: 'big.bin' }, { body: data });
    expect(res.status, res.text).toBe(507);
    expect(res.body.code).toBe('quota_exceeded');
    expect(await snapshotState(t)).toEqual(before);
    expect(await storedNames(t, 'tiny')).toEqual([]);
  });

  it('a form without a file part is a 400 and changes nothing', async () => {
    const { res, unchanged } = await postForm(
      { username: 'ana', file: 'none.txt' },
      'multipart/form-data; boundary=xyz',
      form('xyz', [fieldPart('title', 'no file here')]),
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatch(/file part/);
    await unchanged();
  });

  it('a form with two file parts is a 400 and changes nothing', async () => {
    const { res, unchanged } = await postForm(
      { username: 'ana', file: 'two.txt' },
      'multipart/form-data; boundary=xyz',
      form('xyz', [filePart('a', 'a.txt', 'first file'), filePart('b', 'b.txt', 'second file')]),
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatch(/one file/);
    await unchanged();
  });

  it('a form cut short (no closing boundary) is a 400 and stores nothing', async () => {
    const { res, unchanged } = await postForm(
      { username: 'ana', file: 'cut.txt' },
      'multipart/form-data; boundary=xyz',
      form('xyz', [filePart('file', 'cut.txt', 'the start of a file')], false),
    );
    expect(res.status, res.text).toBe(400);
    await unchanged();
  });

  it('a form whose body is not multipart at all is a 400 and stores nothing', async () => {
    const { res, unchanged } = await postForm(
      { username: 'ana', file: 'junk.txt' },
      'multipart/form-data; boundary=xyz',
      Buffer.from('just some bytes, no boundary anywhere'),
    );
    expect(res.status, res.text).toBe(400);
    await unchanged();
  });

  it('a multipart/form-data type without a boundary is a 400', async () => {
    const { res, unchanged } = await postForm({ username: 'ana', file: 'nob.txt' }, 'multipart/form-data', Buffer.from('x'));
    expect(res.status, res.text).toBe(400);
    await unchanged();
  });

  it('a form with more than 1 MiB around its file (a huge field) is a 413 and stores nothing', async () => {
    const { res, unchanged } = await postForm(
      { username: 'ana', file: 'padded.txt' },
      'multipart/form-data; boundary=xyz',
      form('xyz', [fieldPart('padding', 'p'.repeat(2 * 1024 * 1024)), filePart('file', 'padded.txt', 'small file')]),
    );
    expect(res.status, res.text).toBe(413);
    await unchanged();
  });

  it('a form with too many fields is a 400 and stores nothing', async () => {
    const fields = Array.from({ length: 40 }, (_, i) => fieldPart(`f${i}`, 'v'));
    const { res, unchanged } = await postForm(
      { username: 'ana', file: 'fields.txt' },
      'multipart/form-data; boundary=xyz',
      form('xyz', [...fields, filePart('file', 'fields.txt', 'small file')]),
    );
    expect(res.status, res.text).toBe(400);
    await unchanged();
  });

  it('takes the name from the query, never from the part: without `file` it is a 400', async () => {
    const { res, unchanged } = await postForm(
      { username: 'ana' },
      'multipart/form-data; boundary=xyz',
      form('xyz', [filePart('file', 'from-the-part.txt', 'content')]),
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe('missing_parameter');
    await unchanged();
  });

  it('a form truncated mid-body on the wire (Content-Length not reached) stores nothing', async () => {
    const body = form('xyz', [filePart('file', 'wire.bin', Buffer.alloc(50_000, 3))]);
    const before = await snapshotState(t);
    const head =
      `POST /api/files/upload?username=ana&file=wire.bin HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\n` +
      `Content-Type: multipart/form-data; boundary=xyz\r\nContent-Length: ${body.length}\r\n\r\n`;
    await rawRequest(t.port, Buffer.concat([Buffer.from(head), body.subarray(0, 20_000)]), { endAfterWrite: true }).catch(() => null);
    await vi.waitFor(async () => expect(await snapshotState(t)).toEqual(before), { timeout: 10_000 });
  });
});

describe('body types that are not the content', () => {
  for (const type of [
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=UTF-8',
    'multipart/mixed; boundary=x',
  ]) {
    it(`${type} is a 415 that says what to send, and changes nothing`, async () => {
      const { res, unchanged } = await postForm({ username: 'ana', file: `form-${type.length}.txt` }, type, Buffer.from('a=1&b=2'));
      expect(res.status, res.text).toBe(415);
      expect(res.body.code).toBe('unsupported_media_type');
      expect(res.body.error).toContain('application/octet-stream');
      await unchanged();
    });
  }

  it('the OpenAPI document lists both bodies and the 415 for the upload', async () => {
    const doc = (await t.api('GET', '/api/openapi.json')).body;
    const upload = doc.paths['/api/files/upload'].post;
    expect(Object.keys(upload.responses)).toContain('415');
    expect(Object.keys(upload.requestBody.content).sort()).toEqual(['application/octet-stream', 'multipart/form-data']);
  });
});

describe('raw bodies are still the content', () => {
  const cases: [string, Record<string, string>][] = [
    ['no Content-Type', {}],
    ['application/octet-stream', { 'Content-Type': 'application/octet-stream' }],
    ['image/jpeg', { 'Content-Type': 'image/jpeg' }],
    ['text/plain', { 'Content-Type': 'text/plain; charset=utf-8' }],
  ];
  for (const [kind, headers] of cases) {
    it(`${kind}: stored byte for byte`, async () => {
      const file = `raw-${kind.replace(/\W/g, '-')}.bin`;
      const res = await t.api('POST', '/api/files/upload', { username: 'ana', file }, { headers, body: new Uint8Array(BINARY) });
      expect(res.status, res.text).toBe(201);
      expect((await storedBytes(t, 'ana', file)).equals(BINARY)).toBe(true);
    });
  }
});
