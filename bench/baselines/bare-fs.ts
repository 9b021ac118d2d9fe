/**
 * What the bare node:http baselines (bare-dav.ts, bare-files.ts) share: Nimbus's durability
 * promise and nothing else. A stored file is streamed into a temp file (outside the served tree,
 * on the same file system), fsynced, renamed into place and its directory fsynced before the
 * server answers; a rename fsyncs the directories it touched. Also the one way each server
 * listens and reports its port.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** `rel` (decoded, `/` between names) under `root`, or null when it leaves `root`. */
export function insideRoot(root: string, rel: string): string | null {
  const full = path.join(root, rel.replace(/\/+$/, ''));
  return full === root || full.startsWith(`${root}${path.sep}`) ? full : null;
}

export async function fsyncPath(p: string): Promise<void> {
  const handle = await open(p, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Streams `body` into a temp file in `tmpDir`, fsyncs it, renames it to `file` and fsyncs `file`'s directory. */
export async function storeDurably(body: Readable, tmpDir: string, file: string): Promise<void> {
  const temp = path.join(tmpDir, randomBytes(12).toString('hex'));
  await pipeline(body, createWriteStream(temp));
  await fsyncPath(temp);
  await rename(temp, file);
  await fsyncPath(path.dirname(file));
}

/** Renames `from` to `to` and fsyncs the directory of each (one when both are in the same). */
export async function renameDurably(from: string, to: string): Promise<void> {
  await rename(from, to);
  await fsyncPath(path.dirname(to));
  if (path.dirname(to) !== path.dirname(from)) await fsyncPath(path.dirname(from));
}

/**
 * Serves `handle` on 127.0.0.1, a free port, printing `listening <port>` once ready (what the
 * bench waits for); a failed request answers 404 for ENOENT, 409 for EEXIST, else 500.
 */
export function serve(handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>): void {
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: NodeJS.ErrnoException) => {
      const status = err.code === 'ENOENT' ? 404 : err.code === 'EEXIST' ? 409 : 500;
      if (!res.headersSent) res.writeHead(status, { 'Content-Length': 0 });
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
