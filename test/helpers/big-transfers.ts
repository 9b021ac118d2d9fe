/**
 * Transfers too large to hold in memory, and a daemon's memory watched while they run
 * (issue 14's "a 1 GiB upload and download with flat memory"): generated bodies hashed as
 * they are made, streamed uploads with a Content-Length, downloads hashed as they arrive,
 * and a child process's resident memory sampled meanwhile. Nothing of a transfer's size is
 * ever held by the test either.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';

export const MIB = 1 << 20;
export const GIB = 1 << 30;

/** The resident memory of a process, in bytes (VmRSS of /proc/<pid>/status). */
export async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) * 1024;
}

/** Samples a process's RSS every 50 ms while `work` runs; resolves with the work's result and the peak growth. */
export async function peakGrowth<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; before: number; peak: number }> {
  const before = await rssOf(pid);
  let peak = before;
  const sampler = setInterval(
    () =>
      void rssOf(pid).then(
        (rss) => (peak = Math.max(peak, rss)),
        () => undefined,
      ),
    50,
  );
  try {
    const result = await work();
    peak = Math.max(peak, await rssOf(pid));
    return { result, before, peak };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * `size` bytes made on the fly (a random MiB, each copy stamped with its index so no two MiB
 * are alike), hashed as they are made.
 */
export function generated(size: number): { stream: Readable; sha256: () => string } {
  const block = Buffer.alloc(MIB);
  for (let i = 0; i < MIB; i += 4) block.writeUInt32LE((Math.random() * 0xffffffff) >>> 0, i);
  const hash = createHash('sha256');
  let sent = 0;
  let index = 0;
  const stream = new Readable({
    read() {
      if (sent >= size) {
        this.push(null);
        return;
      }
      const chunk = Buffer.from(block.subarray(0, Math.min(MIB, size - sent)));
      chunk.writeUInt32LE(index++, 0);
      hash.update(chunk);
      sent += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, sha256: () => hash.digest('hex') };
}

/** A streamed upload with a Content-Length (as a browser sends a file) of `username`'s `file` through `base`. */
export function uploadStream(
  base: string,
  key: string,
  username: string,
  file: string,
  body: Readable,
  size: number,
): Promise<{ status: number; text: string }> {
  const url = new URL(`/api/files/upload?username=${encodeURIComponent(username)}&file=${encodeURIComponent(file)}`, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'API-Key': key, 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    body.pipe(req);
  });
}

/** The sha256 and length of a streamed download. */
export async function hashDownload(res: Response): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** `size` bytes from a fixed seed (xorshift32), each MiB stamped with its index; answers their SHA-256. */
export async function writeSeededFile(file: string, size: number): Promise<string> {
  const block = Buffer.alloc(MIB);
  let x = 0x2545f491;
  for (let i = 0; i < MIB; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    block.writeUInt32LE(x >>> 0, i);
  }
  const hash = createHash('sha256');
  const out = createWriteStream(file);
  for (let i = 0; i < size / MIB; i++) {
    const chunk = Buffer.from(block);
    chunk.writeUInt32LE(i, 0);
    hash.update(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
  return hash.digest('hex');
}
