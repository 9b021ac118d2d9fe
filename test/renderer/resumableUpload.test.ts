/**
 * The explorer's resumable uploads (renderer/upload/resumable.ts): the real tus-js-client
 * (its browser build), talking to a tus server simulated in memory through its `httpStack`
 * option, so a connection can drop mid-PATCH on cue. The progress a person sees never runs
 * ahead of what the server holds after a resume and never falls back to zero; a reload resumes
 * the same file to the same place; a cancel terminates; the daemon's refusals keep their code.
 */
import type { HttpRequest, HttpResponse, UploadOptions } from 'tus-js-client';
// The browser build, as Vite bundles it (the package's "browser" field); Node would load its node build.
import { Upload as TusBrowserUpload } from 'tus-js-client/lib.esm/browser/index.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../renderer/api/client';
import { CHUNK_BYTES, RESUMABLE_FROM_BYTES, uploadResumable, type UploadClass } from '../../renderer/upload/resumable';
import type { UploadTarget } from '../../renderer/upload/UploadQueue';

interface Stored {
  length: number;
  offset: number;
  bytes: Uint8Array;
  metadata: string;
}

/** A tus server in memory: creation, HEAD, PATCH, DELETE, and a PATCH dropped after `dropAfter` bytes on demand. */
class FakeTus {
  readonly uploads = new Map<string, Stored>();
  readonly log: string[] = [];
  headers: Record<string, string> = {};
  dropAfter: number | null = null;
  /**
   * With dropAfter, what the client gets: no answer (null: the connection dropped), or this
   * status, as when Chromium resends the broken PATCH at its old offset and the daemon says 409.
   */
  dropStatus: number | null = null;
  refuseCreation: { status: number; body: string } | null = null;
  #next = 0;

  readonly stack = { createRequest: (method: string, url: string) => new FakeRequest(this, method, url), getName: () => 'fake' };

  async handle(req: FakeRequest, body: Blob | null): Promise<FakeResponse> {
    const id = req.url.split('/').pop()!;
    const found = this.uploads.get(id);
    this.log.push(`${req.method}${found ? ` @${found.offset}` : ''}`);
    this.headers = { ...req.headers };
    if (req.method === 'POST') {
      if (this.refuseCreation) return new FakeResponse(this.refuseCreation.status, {}, this.refuseCreation.body);
      const created = `u${this.#next++}`;
      const length = Number(req.headers['Upload-Length']);
      this.uploads.set(created, { length, offset: 0, bytes: new Uint8Array(length), metadata: req.headers['Upload-Metadata'] });
      return new FakeResponse(201, { Location: `/api/uploads/${created}` });
    }
    if (!found) return new FakeResponse(404, {}, '{"error":"No such upload","code":"upload_not_found"}');
    if (req.method === 'HEAD')
      return new FakeResponse(200, { 'Upload-Offset': String(found.offset), 'Upload-Length': String(found.length) });
    if (req.method === 'DELETE') {
      this.uploads.delete(id);
      return new FakeResponse(204, {});
    }
    if (Number(req.headers['Upload-Offset']) !== found.offset) return new FakeResponse(409, {}, '{"code":"upload_offset_mismatch"}');
    let chunk = new Uint8Array(await body!.arrayBuffer());
    const drop = this.dropAfter !== null;
    if (drop) chunk = chunk.subarray(0, this.dropAfter!);
    this.dropAfter = null;
    found.bytes.set(chunk, found.offset);
    found.offset += chunk.length;
    req.progress?.(chunk.length);
    if (drop && this.dropStatus !== null)
      return new FakeResponse(this.dropStatus, {}, '{"error":"The upload is not at that offset","code":"upload_offset_mismatch"}');
    if (drop) throw new Error('The connection dropped');
    return new FakeResponse(204, { 'Upload-Offset': String(found.offset) });
  }
}

class FakeRequest implements HttpRequest {
  readonly headers: Record<string, string> = {};
  progress: ((bytes: number) => void) | null = null;
  constructor(
    private readonly server: FakeTus,
    readonly method: string,
    readonly url: string,
  ) {}
  getMethod = () => this.method;
  getURL = () => this.url;
  setHeader = (name: string, value: string) => void (this.headers[name] = value);
  getHeader = (name: string) => this.headers[name];
  setProgressHandler = (handler: (bytes: number) => void) => void (this.progress = handler);
  send = (body?: unknown) => this.server.handle(this, (body as Blob | undefined) ?? null);
  abort = () => Promise.resolve();
  getUnderlyingObject = () => this;
}

class FakeResponse implements HttpResponse {
  constructor(
    private readonly status: number,
    private readonly headers: Record<string, string>,
    private readonly body = '',
  ) {}
  getStatus = () => this.status;
  getHeader = (name: string) => this.headers[name];
  getBody = () => this.body;
  getUnderlyingObject = () => this;
}

let server: FakeTus;
/** tus-js-client's own Upload, with the fake server as its network. */
const uploadClass = (): UploadClass =>
  class extends TusBrowserUpload {
    constructor(file: Blob, options: UploadOptions) {
      super(file, { ...options, httpStack: server.stack, retryDelays: [0, 10, 10] });
    }
  };
const client = { connection: { baseUrl: 'http://127.0.0.1:7878', apiKey: 'k-123' } };
const target: UploadTarget = { username: 'ana', folder: 'photos/2024', name: 'big.mov', overwrite: false };
const file = (size: number) => new File([Uint8Array.from({ length: size }, (_, i) => i % 251)], 'big.mov', { lastModified: 1 });
const decoded = (metadata: string) =>
  Object.fromEntries(metadata.split(',').map((pair) => [pair.split(' ')[0], atob(pair.split(' ')[1] ?? '')]));

beforeEach(() => {
  server = new FakeTus();
  localStorage.clear();
});

describe('resumable uploads in the explorer', () => {
  it('are used from 16 MiB', () => {
    expect(RESUMABLE_FROM_BYTES).toBe(16 * 1024 * 1024);
  });

  it('go up in PATCHes of 16 MiB at most, so a broken one costs that much at most', async () => {
    // Chromium resends a PATCH whose reused connection broke, whole, and the daemon reads it all before its 409.
    expect(CHUNK_BYTES).toBe(16 * 1024 * 1024);
    const size = 2 * CHUNK_BYTES + 1000;
    const seen: number[] = [];
    await uploadResumable(
      client,
      target,
      new File([new Uint8Array(size)], 'big.mov'),
      (loaded) => seen.push(loaded),
      new AbortController().signal,
      uploadClass(),
    );
    expect(server.log).toEqual(['POST', 'PATCH @0', `PATCH @${CHUNK_BYTES}`, `PATCH @${2 * CHUNK_BYTES}`]);
    expect([...server.uploads.values()][0].offset).toBe(size);
    expect(seen.at(-1)).toBe(size);
  });

  it('send files.upload’s parameters as metadata and the key as API-Key', async () => {
    await uploadResumable(client, { ...target, overwrite: true }, file(1000), () => undefined, new AbortController().signal, uploadClass());
    const [stored] = server.uploads.values();
    expect(decoded(stored.metadata)).toEqual({ username: 'ana', filename: 'big.mov', folder: 'photos/2024', overwrite: 'true' });
    expect(server.headers['API-Key']).toBe('k-123');
    expect(stored.offset).toBe(1000);
  });

  it('resume after a dropped connection with honest progress: from the server’s offset, never from zero', async () => {
    const body = file(100_000);
    server.dropAfter = 30_000;
    const seen: number[] = [];
    await uploadResumable(client, target, body, (loaded) => seen.push(loaded), new AbortController().signal, uploadClass());
    expect(server.log).toEqual(['POST', 'PATCH @0', 'HEAD @30000', 'PATCH @30000']);
    const [stored] = server.uploads.values();
    expect(stored.bytes).toEqual(new Uint8Array(await body.arrayBuffer()));
    // Never backwards, never past the end.
    expect(seen.every((n, i) => n <= 100_000 && (i === 0 || n >= seen[i - 1]))).toBe(true);
    expect(seen).toContain(30_000);
    expect(seen.at(-1)).toBe(100_000);
  });

  it.each([
    ['no answer', null],
    ['a 409 (Chromium resent the PATCH at its old offset)', 409],
  ])('wait for the network when the browser goes offline mid-PATCH (%s), then resume from the server’s offset', async (_, status) => {
    // tus-js-client retries only while navigator.onLine; offline it would fail the upload at once.
    let online = false;
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => online });
    try {
      const body = file(80_000);
      server.dropAfter = 25_000;
      server.dropStatus = status;
      const seen: number[] = [];
      let settled = false;
      const running = uploadResumable(client, target, body, (loaded) => seen.push(loaded), new AbortController().signal, uploadClass());
      void running.then(
        () => (settled = true),
        () => (settled = true),
      );
      await expect.poll(() => server.log).toEqual(['POST', 'PATCH @0']);
      // Offline for a while: neither failed nor retried (no retry can succeed, none is spent).
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(settled).toBe(false);
      expect(server.log).toEqual(['POST', 'PATCH @0']);
      online = true;
      window.dispatchEvent(new Event('online'));
      await running;
      expect(server.log).toEqual(['POST', 'PATCH @0', 'HEAD @25000', 'PATCH @25000']);
      expect([...server.uploads.values()][0].bytes).toEqual(new Uint8Array(await body.arrayBuffer()));
      expect(Math.min(...seen.slice(seen.indexOf(25_000)))).toBe(25_000);
      expect(seen.at(-1)).toBe(80_000);
    } finally {
      delete (navigator as { onLine?: boolean }).onLine;
    }
  });

  it('a cancel while waiting for the network terminates the upload, and coming online starts nothing', async () => {
    let online = false;
    Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => online });
    try {
      server.dropAfter = 100;
      const cancel = new AbortController();
      const running = uploadResumable(client, target, file(1000), () => undefined, cancel.signal, uploadClass());
      await expect.poll(() => server.log).toEqual(['POST', 'PATCH @0']);
      cancel.abort();
      await expect(running).rejects.toMatchObject({ name: 'AbortError' });
      online = true;
      window.dispatchEvent(new Event('online'));
      await expect.poll(() => server.uploads.size).toBe(0);
      expect(server.log.filter((entry) => entry.startsWith('HEAD') || entry.startsWith('PATCH'))).toEqual(['PATCH @0']);
    } finally {
      delete (navigator as { onLine?: boolean }).onLine;
    }
  });

  it('after a reload, the same file to the same place resumes the upload begun before', async () => {
    const body = file(50_000);
    server.dropAfter = 20_000;
    const first = new AbortController();
    const seen: number[] = [];
    const running = uploadResumable(
      client,
      target,
      body,
      (loaded) => {
        seen.push(loaded);
        if (loaded >= 20_000) first.abort(); // the page goes away after the drop
      },
      first.signal,
      class extends TusBrowserUpload {
        constructor(f: Blob, options: UploadOptions) {
          // No retry: the page is gone; but no terminate either (a reload, not a cancel).
          super(f, { ...options, httpStack: server.stack, retryDelays: null });
        }
        override abort() {
          return super.abort(false);
        }
      },
    );
    await expect(running).rejects.toThrow();
    expect([...server.uploads.values()][0].offset).toBe(20_000);
    const resumed: number[] = [];
    await uploadResumable(client, target, body, (loaded) => resumed.push(loaded), new AbortController().signal, uploadClass());
    expect(server.uploads.size).toBe(1);
    expect(server.log.slice(-2)).toEqual(['HEAD @20000', 'PATCH @20000']);
    expect(Math.min(...resumed)).toBeGreaterThanOrEqual(20_000);
    // Another folder is another upload, not this one resumed.
    await uploadResumable(client, { ...target, folder: 'other' }, body, () => undefined, new AbortController().signal, uploadClass());
    expect(server.log.filter((entry) => entry === 'POST')).toHaveLength(2);
  });

  it('a cancel terminates the upload on the daemon', async () => {
    const cancel = new AbortController();
    server.dropAfter = 10;
    const running = uploadResumable(client, target, file(1000), (loaded) => loaded > 0 && cancel.abort(), cancel.signal, uploadClass());
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    await expect.poll(() => server.log.some((entry) => entry.startsWith('DELETE'))).toBe(true);
    expect(server.uploads.size).toBe(0);
  });

  it('a refusal keeps the daemon’s code and message (a 507 is the quota)', async () => {
    server.refuseCreation = { status: 507, body: '{"error":"Storage quota exceeded: 900.0 MB of 1024.0 MB used","code":"quota_exceeded"}' };
    const failed = uploadResumable(client, target, file(10), () => undefined, new AbortController().signal, uploadClass());
    await expect(failed).rejects.toBeInstanceOf(ApiError);
    await expect(failed).rejects.toMatchObject({ status: 507, code: 'quota_exceeded', message: expect.stringMatching(/quota/) });
  });
});
