/**
 * Uploads against quota races, lying lengths, aborted and killed clients, a full disk, and
 * share links: guessing, and uploaded HTML or SVG that must never run on the daemon's origin.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestDaemon, TEST_KEY, type TestDaemon } from '../helpers/daemon.js';
import { NIMBUS } from '../helpers/child.js';
import { rawRequest } from '../helpers/raw-http.js';

const MIB = 1024 * 1024;
let t: TestDaemon;

const tempFiles = () => readdir(path.join(t.dataDir, 'tmp')).catch(() => [] as string[]);
const usage = async (username: string) => (await t.api('GET', '/api/user', { username })).body.usage.usedBytes as number;

beforeAll(async () => {
  t = await startTestDaemon();
  await t.api('POST', '/api/role/create', { name: 'tiny', maxStorage: '1', badge: 'https://example.com/t.png' });
  for (const username of ['q', 'r', 's', 'w']) {
    await t.api('POST', '/api/user/create', { username, email: `${username}@example.com`, password: 'password1' });
    await t.api('POST', '/api/user/role', { username, name: 'tiny' });
  }
});
afterAll(() => t.close());

function chunkedBody(total: number, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  return Readable.toWeb(
    Readable.from(
      (function* () {
        for (let sent = 0; sent < total; sent += chunk) yield Buffer.alloc(Math.min(chunk, total - sent), 97);
      })(),
    ),
  ) as ReadableStream<Uint8Array>;
}

describe('quota races', () => {
  it('parallel uploads with Content-Length that together pass the quota never store more than it', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.api('POST', '/api/files/upload', { username: 'q', file: `p${i}.bin` }, { body: Buffer.alloc(300 * 1024) }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201).length).toBe(3);
    expect(statuses.filter((s) => s === 507).length).toBe(5);
    expect(await usage('q')).toBeLessThanOrEqual(MIB);
    expect(await tempFiles()).toEqual([]);
  });

  it('parallel chunked uploads with no length are stopped by the byte counter', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t
          .api('POST', '/api/files/upload', { username: 'r', file: `c${i}.bin` }, {
            body: chunkedBody(400 * 1024),
            duplex: 'half',
          } as RequestInit)
          .catch(() => ({ status: 0 })),
      ),
    );
    expect(results.filter((r) => r.status === 201).length).toBeLessThanOrEqual(2);
    expect(await usage('r')).toBeLessThanOrEqual(MIB);
    const listed = await t.api('GET', '/api/files', { username: 'r' });
    const stored = listed.body.files.reduce((sum: number, f: { size: number }) => sum + f.size, 0);
    expect(stored).toBeLessThanOrEqual(MIB);
    await vi.waitFor(async () => expect(await tempFiles()).toEqual([]));
  });
});

describe('lying lengths', () => {
  const head = (length: number | null, file: string) =>
    `POST /api/files/upload?username=s&file=${file} HTTP/1.1\r\nHost: 127.0.0.1:${t.daemon.port}\r\nAPI-Key: ${TEST_KEY}\r\n` +
    (length === null ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${length}\r\n`) +
    'Connection: close\r\n\r\n';

  it('a Content-Length smaller than the body never stores more than Content-Length bytes', async () => {
    // Node parses the extra bytes as a next request; being garbage, it may end the
    // connection before the upload's answer. Either way at most 5 bytes are kept.
    const res = await rawRequest(t.daemon.port, `${head(5, 'short.txt').replace('Connection: close\r\n', '')}0123456789`).catch(() => ({
      status: 0,
    }));
    expect([201, 400, 0]).toContain(res.status);
    await vi.waitFor(async () => expect(await tempFiles()).toEqual([]));
    const listed = await t.api('GET', '/api/files', { username: 's' });
    for (const f of listed.body.files as { name: string; size: number }[]) if (f.name === 'short.txt') expect(f.size).toBe(5);
    expect(await usage('s')).toBeLessThanOrEqual(5);
  });

  it('a Content-Length larger than the body (client closes) leaves no file and no temp file', async () => {
    await new Promise<void>((resolve) => {
      const socket = net.connect(t.daemon.port, '127.0.0.1', () => {
        socket.write(`${head(100_000, 'long.txt')}only a little`);
        socket.end();
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
      socket.resume();
    });
    await vi.waitFor(async () => expect(await tempFiles()).toEqual([]));
    const listed = await t.api('GET', '/api/files', { username: 's' });
    expect(listed.body.files.map((f: { name: string }) => f.name)).not.toContain('long.txt');
  });

  it('a chunked body over the quota is refused with 507 and its temp file removed', async () => {
    const res = await t
      .api('POST', '/api/files/upload', { username: 's', file: 'big.bin' }, { body: chunkedBody(2 * MIB), duplex: 'half' } as RequestInit)
      .catch((err: Error) => ({ status: 0, text: err.message }));
    expect([507, 0]).toContain(res.status);
    await vi.waitFor(async () => expect(await tempFiles()).toEqual([]));
    expect(await usage('s')).toBeLessThanOrEqual(5);
  });

  it('a Content-Length over the quota is refused before any byte is stored', async () => {
    const res = await t.api('POST', '/api/files/upload', { username: 's', file: 'huge.bin' }, { body: Buffer.alloc(2 * MIB) });
    expect(res.status).toBe(507);
    expect(res.body.code).toBe('quota_exceeded');
    expect(await tempFiles()).toEqual([]);
  });
});

describe('interrupted uploads', () => {
  it('a client that aborts mid-upload leaves no partial file, no temp file, and usage unchanged', async () => {
    const before = await usage('w');
    const controller = new AbortController();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (sent > 200 * 1024) {
          controller.abort();
          return;
        }
        sent += 64 * 1024;
        c.enqueue(new Uint8Array(64 * 1024));
        await new Promise((r) => setImmediate(r));
      },
    });
    await t
      .api('POST', '/api/files/upload', { username: 'w', file: 'aborted.bin' }, {
        body,
        duplex: 'half',
        signal: controller.signal,
      } as RequestInit)
      .catch(() => undefined);
    await vi.waitFor(async () => expect(await tempFiles()).toEqual([]));
    const listed = await t.api('GET', '/api/files', { username: 'w' });
    expect(listed.body.files).toEqual([]);
    expect(await usage('w')).toBe(before);
  });

  it('a daemon killed mid-upload shows no partial file after restart, and its temp files are cleaned', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-kill-upload-'));
    const env = { ...process.env, NIMBUS_API_KEY: TEST_KEY, NIMBUS_KEYCHAIN: 'off' };
    const start = () => {
      const child = spawn(process.execPath, [...NIMBUS, 'daemon', '--port', '0', '--data-dir', dataDir], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const url = new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          const m = /listening on (\S+)/.exec(d.toString());
          if (m) resolve(m[1]);
        });
        child.on('exit', (code) => reject(new Error(`daemon exited ${code}`)));
      });
      return { child, url };
    };
    const first = start();
    const url = await first.url;
    const headers = { 'API-Key': TEST_KEY };
    await fetch(`${url}/api/user/create?username=k&email=k@example.com&password=password1`, { method: 'POST', headers });
    const port = Number(new URL(url).port);
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(
      `POST /api/files/upload?username=k&file=partial.bin HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAPI-Key: ${TEST_KEY}\r\nContent-Length: 10000000\r\n\r\n`,
    );
    socket.write(Buffer.alloc(256 * 1024));
    await vi.waitFor(async () => expect((await readdir(path.join(dataDir, 'tmp')).catch(() => [])).length).toBe(1));
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    socket.destroy();
    expect((await readdir(path.join(dataDir, 'tmp'))).length).toBe(1);
    const second = start();
    const url2 = await second.url;
    try {
      expect(await readdir(path.join(dataDir, 'tmp'))).toEqual([]);
      const listed = (await (await fetch(`${url2}/api/files?username=k`, { headers })).json()) as { files: unknown[] };
      expect(listed.files).toEqual([]);
      const user = (await (await fetch(`${url2}/api/user?username=k`, { headers })).json()) as { usage: { usedBytes: number } };
      expect(user.usage.usedBytes).toBe(0);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a full disk', () => {
  let mountPoint: string | null = null;
  beforeAll(async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-full-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', dir], { stdio: 'ignore' });
      mountPoint = dir;
    } catch {
      if (process.env.NIMBUS_REQUIRE_E2E === '1') throw new Error('cannot mount a tmpfs for the disk-full test (needs root)');
    }
  });
  afterAll(() => {
    if (mountPoint) execFileSync('umount', ['-l', mountPoint]);
  });

  it('answers 507 when the disk fills during an upload, and corrupts nothing', async (ctx) => {
    if (!mountPoint) ctx.skip();
    const full = await startTestDaemon({ dataDir: path.join(mountPoint!, 'data') });
    try {
      await full.api('POST', '/api/role/create', { name: 'unlimited', maxStorage: '-1', badge: 'https://example.com/u.png' });
      await full.api('POST', '/api/user/create', { username: 'big', email: 'big@example.com', password: 'password1' });
      await full.api('POST', '/api/user/role', { username: 'big', name: 'unlimited' });
      await full.api('POST', '/api/files/upload', { username: 'big', file: 'keep.txt' }, { body: 'precious' });
      const res = await full.api('POST', '/api/files/upload', { username: 'big', file: 'fill.bin' }, { body: Buffer.alloc(4 * MIB) });
      expect(res.status).toBe(507);
      expect(res.body.code).toBe('disk_full');
      expect(await readdir(path.join(full.dataDir, 'tmp'))).toEqual([]);
      const listed = await full.api('GET', '/api/files', { username: 'big' });
      expect(listed.body.files.map((f: { name: string }) => f.name)).toEqual(['keep.txt']);
      expect((await full.api('GET', '/api/files/download', { username: 'big', file: 'keep.txt' })).text).toBe('precious');
      JSON.parse(await readFile(path.join(full.dataDir, 'db.json'), 'utf8'));
      // Still works once there is room again.
      expect((await full.api('POST', '/api/files/upload', { username: 'big', file: 'small.txt' }, { body: 'ok' })).status).toBe(201);
    } finally {
      await full.close();
    }
  });
});

describe('share links', () => {
  it('carry at least 128 bits of randomness and never repeat', async () => {
    await t.api('POST', '/api/user/create', { username: 'sh', email: 'sh@example.com', password: 'password1' });
    const tokens = new Set<string>();
    for (let i = 0; i < 30; i++) {
      await t.api('POST', '/api/files/upload', { username: 'sh', file: `f${i}.txt` }, { body: `${i}` });
      const shared = await t.api('POST', '/api/files/share', { username: 'sh', file: `f${i}.txt` });
      const token = new URL(shared.body.file.shareUrl).pathname.split('/')[2];
      expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
      tokens.add(token);
    }
    expect(tokens.size).toBe(30);
  });

  it('guessing at volume is throttled', async () => {
    const guesses = await Promise.all(
      Array.from({ length: 60 }, (_, i) => fetch(`${t.url}/s/${'A'.repeat(40)}${String(i).padStart(3, '0')}`)),
    );
    const statuses = guesses.map((r) => r.status);
    expect(statuses.every((s) => s === 404 || s === 429)).toBe(true);
    expect(statuses).toContain(429);
  });

  it('an uploaded HTML or SVG file is served inert, by download and by share', async () => {
    await mkdir(path.join(t.storageDir, 'sh'), { recursive: true });
    const payloads: Record<string, string> = {
      'evil.html': '<script>fetch("/api/user/all")</script>',
      'evil.svg': '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    };
    for (const [file, content] of Object.entries(payloads)) {
      await t.api('POST', '/api/files/upload', { username: 'sh', file }, { body: content });
      const shared = await t.api('POST', '/api/files/share', { username: 'sh', file });
      const viaShare = await fetch(shared.body.file.shareUrl);
      const viaDownload = await t.api('GET', '/api/files/download', { username: 'sh', file });
      for (const headers of [viaShare.headers, viaDownload.headers]) {
        expect(headers.get('content-disposition')).toMatch(/^attachment;/);
        expect(headers.get('x-content-type-options')).toBe('nosniff');
        expect(headers.get('content-security-policy')).toContain("default-src 'none'");
        expect(headers.get('content-security-policy')).toContain('sandbox');
      }
    }
  });
});
