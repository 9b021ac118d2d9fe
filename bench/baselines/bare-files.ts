/**
 * The small-file baseline of bench/scenarios/small-files.ts: bare node:http offering the API's
 * file operations at the API's own paths and query names (so one client drives it and Nimbus),
 * with Nimbus's durability promise (bare-fs.ts) and nothing else:
 * - POST /api/files/upload?username&file[&folder]: the raw body, stored durably, then 201 {msg, file};
 * - GET /api/files/download?username&file[&folder]: the bytes, with Content-Length, 200;
 * - POST /api/files/rename?username&file&newname[&folder]: a rename in the folder, its directory fsynced, 201;
 * - POST /api/folders/create?username&folder: mkdir, the parent fsynced, 201;
 * - GET /api/folders/files?username&folder: readdir and a stat per entry, 200 {files: [{name, size, modifiedAt}]}.
 * Files live at `<root>/<username>/<folder>/<file>`. The API-Key header is compared as a string;
 * no quota, no index, no events. Run as a child process, like the daemon:
 * `BARE_API_KEY=<key> node --import tsx bench/baselines/bare-files.ts <root> <tmpdir>`; prints `listening <port>`.
 */
import { mkdir, open, readdir, stat } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fsyncPath, insideRoot, renameDurably, serve, storeDurably } from './bare-fs.js';

const [root, tmpDir] = process.argv.slice(2);
// From the environment, not argv: the key is the bench daemon's own.
const apiKey = process.env.BARE_API_KEY;
if (!root || !tmpDir || !apiKey) throw new Error('usage: BARE_API_KEY=<key> bare-files.ts <root> <tmpdir>');

class BadRequest extends Error {}

const isName = (s: string | null): s is string => !!s && s !== '.' && s !== '..' && !/[/\\\0]/.test(s);

/** The path `username`, `folder` (names between `/`, optional) and `name` (optional) address, checked name by name. */
function pathOf(q: URLSearchParams, name?: string | null): string {
  const username = q.get('username');
  const folder = q.get('folder');
  const names = [username, ...(folder ? folder.split('/') : []), ...(name === undefined ? [] : [name])];
  if (!names.every(isName)) throw new BadRequest();
  const full = insideRoot(root, names.join('/'));
  if (!full) throw new BadRequest();
  return full;
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

async function download(res: http.ServerResponse, file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': size });
    await pipeline(handle.createReadStream({ autoClose: false }), res);
  } finally {
    await handle.close();
  }
}

async function listing(res: http.ServerResponse, dir: string): Promise<void> {
  const names = await readdir(dir);
  const stats = await Promise.all(names.map((name) => stat(path.join(dir, name))));
  const files = names.flatMap((name, i) =>
    stats[i].isFile() ? [{ name, size: stats[i].size, modifiedAt: stats[i].mtime.toISOString() }] : [],
  );
  json(res, 200, { files });
}

async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://bare');
  const q = url.searchParams;
  const op = `${req.method} ${url.pathname}`;
  if (op === 'POST /api/files/upload') {
    const file = pathOf(q, q.get('file'));
    await storeDurably(req, tmpDir, file);
    return json(res, 201, { msg: 'File uploaded', file: { name: q.get('file') } });
  }
  req.resume();
  switch (op) {
    case 'GET /api/files/download':
      return download(res, pathOf(q, q.get('file')));
    case 'POST /api/files/rename': {
      const from = pathOf(q, q.get('file'));
      await renameDurably(from, pathOf(q, q.get('newname')));
      return json(res, 201, { msg: 'File renamed', file: { name: q.get('newname') } });
    }
    case 'POST /api/folders/create': {
      const dir = pathOf(q);
      await mkdir(dir);
      await fsyncPath(path.dirname(dir));
      return json(res, 201, { msg: 'Folder created', folder: { name: q.get('folder') } });
    }
    case 'GET /api/folders/files':
      return listing(res, pathOf(q));
    default:
      return json(res, 404, { error: 'Not found', code: 'not_found' });
  }
}

serve(async (req, res) => {
  if (req.headers['api-key'] !== apiKey) {
    req.resume();
    return json(res, 401, { error: 'Invalid API key', code: 'unauthorized' });
  }
  try {
    await route(req, res);
  } catch (err) {
    if (!(err instanceof BadRequest)) throw err;
    req.resume();
    json(res, 400, { error: 'Bad parameter', code: 'bad_request' });
  }
});
