/**
 * The WebDAV baseline of bench/scenarios/dav.ts: bare node:http serving a directory with the
 * fsyncs Nimbus makes and nothing else. PUT streams the body into a temp file (outside the served
 * tree, same file system), fsyncs it, renames it into place, fsyncs the directory, then answers
 * 201; MOVE renames and fsyncs the directory (both, across two); MKCOL makes the directory;
 * PROPFIND (Depth 0 or 1) answers from a directory listing and a stat per entry. One Basic
 * credential, compared as a string. Run as a child process, like the daemon:
 * `node --import tsx bench/baselines/bare-dav.ts <root> <tmpdir> <user> <pass>`; prints `listening <port>`.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const [root, tmpDir, user, pass] = process.argv.slice(2);
const expectedAuth = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

/** The file a request path names under `root`, or null when it leaves it. */
function resolve(urlPath: string): string | null {
  const rel = decodeURIComponent(urlPath.split('?')[0]).replace(/\/+$/, '');
  const full = path.join(root, rel);
  return full === root || full.startsWith(`${root}${path.sep}`) ? full : null;
}

async function fsyncPath(p: string): Promise<void> {
  const handle = await open(p, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const hrefOf = (urlPath: string) => escapeXml(urlPath.split('/').map(encodeURIComponent).join('/'));

function responseXml(href: string, s: { isDirectory(): boolean; size: number; mtime: Date; mtimeMs: number; ino: number }): string {
  const type = s.isDirectory() ? '<D:resourcetype><D:collection/></D:resourcetype>' : '<D:resourcetype/>';
  const length = s.isDirectory() ? '' : `<D:getcontentlength>${s.size}</D:getcontentlength>`;
  return (
    `<D:response><D:href>${href}</D:href><D:propstat><D:prop>${type}${length}` +
    `<D:getlastmodified>${s.mtime.toUTCString()}</D:getlastmodified><D:getetag>"${s.ino.toString(16)}-${Math.floor(s.mtimeMs).toString(16)}-${s.size.toString(16)}"</D:getetag>` +
    `</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`
  );
}

async function propfind(req: http.IncomingMessage, res: http.ServerResponse, file: string): Promise<void> {
  req.resume();
  const self = await stat(file);
  const base = decodeURIComponent(req.url!.split('?')[0]);
  const parts = [responseXml(hrefOf(base), self)];
  if (self.isDirectory() && req.headers.depth !== '0') {
    const names = await readdir(file);
    const dirPath = base.endsWith('/') ? base : `${base}/`;
    const stats = await Promise.all(names.map((name) => stat(path.join(file, name))));
    names.forEach((name, i) => parts.push(responseXml(hrefOf(`${dirPath}${name}${stats[i].isDirectory() ? '/' : ''}`), stats[i])));
  }
  const body = `<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">${parts.join('')}</D:multistatus>`;
  res.writeHead(207, { 'Content-Type': 'application/xml; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

async function put(req: http.IncomingMessage, res: http.ServerResponse, file: string): Promise<void> {
  const temp = path.join(tmpDir, randomBytes(12).toString('hex'));
  const out = createWriteStream(temp);
  await pipeline(req, out);
  await fsyncPath(temp);
  await rename(temp, file);
  await fsyncPath(path.dirname(file));
  res.writeHead(201, { 'Content-Length': 0 }).end();
}

async function move(req: http.IncomingMessage, res: http.ServerResponse, file: string): Promise<void> {
  req.resume();
  const destination = resolve(new URL(String(req.headers.destination)).pathname);
  if (!destination) return void res.writeHead(403, { 'Content-Length': 0 }).end();
  await rename(file, destination);
  await fsyncPath(path.dirname(destination));
  if (path.dirname(destination) !== path.dirname(file)) await fsyncPath(path.dirname(file));
  res.writeHead(201, { 'Content-Length': 0 }).end();
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.headers.authorization !== expectedAuth) {
    req.resume();
    return void res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="bare"', 'Content-Length': 0 }).end();
  }
  const file = resolve(req.url ?? '/');
  if (!file) return void res.writeHead(403, { 'Content-Length': 0 }).end();
  switch (req.method) {
    case 'PROPFIND':
      return propfind(req, res, file);
    case 'PUT':
      return put(req, res, file);
    case 'MOVE':
      return move(req, res, file);
    case 'MKCOL':
      req.resume();
      await mkdir(file);
      return void res.writeHead(201, { 'Content-Length': 0 }).end();
    case 'OPTIONS':
      req.resume();
      return void res.writeHead(200, { DAV: '1', Allow: 'OPTIONS, PROPFIND, MKCOL, PUT, MOVE', 'Content-Length': 0 }).end();
    default:
      req.resume();
      res.writeHead(405, { 'Content-Length': 0 }).end();
  }
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err: NodeJS.ErrnoException) => {
    if (!res.headersSent) res.writeHead(err.code === 'ENOENT' ? 404 : 500, { 'Content-Length': 0 });
    res.end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
