/**
 * The WebDAV baseline of bench/scenarios/dav.ts: bare node:http serving a directory with the
 * fsyncs Nimbus makes and nothing else. PUT streams the body into a temp file (outside the served
 * tree, same file system), fsyncs it, renames it into place, fsyncs the directory, then answers
 * 201; MOVE renames and fsyncs the directory (both, across two); MKCOL makes the directory;
 * PROPFIND (Depth 0 or 1) answers from a directory listing and a stat per entry. One Basic
 * credential, compared as a string. Run as a child process, like the daemon:
 * `node --import tsx bench/baselines/bare-dav.ts <root> <tmpdir> <user> <pass>`; prints `listening <port>`.
 */
import { mkdir, readdir, stat } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { insideRoot, renameDurably, serve, storeDurably } from './bare-fs.js';

const [root, tmpDir, user, pass] = process.argv.slice(2);
const expectedAuth = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

/** The file a request path names under `root`, or null when it leaves it. */
const resolve = (urlPath: string) => insideRoot(root, decodeURIComponent(urlPath.split('?')[0]));

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
  await storeDurably(req, tmpDir, file);
  res.writeHead(201, { 'Content-Length': 0 }).end();
}

async function move(req: http.IncomingMessage, res: http.ServerResponse, file: string): Promise<void> {
  req.resume();
  const destination = resolve(new URL(String(req.headers.destination)).pathname);
  if (!destination) return void res.writeHead(403, { 'Content-Length': 0 }).end();
  await renameDurably(file, destination);
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

serve(handle);
