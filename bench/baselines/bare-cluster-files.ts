/**
 * The small-file baseline of bench/scenarios/small-cluster.ts: bare node:http at the API's own
 * paths and query names (the client of bench/lib/small-servers.ts drives it and Nimbus), making
 * a cluster daemon's promises (docs/cluster.md) and nothing else, on the same PostgreSQL and S3:
 * - POST /api/files/upload?username&folder&file: the body streamed into one PutObject under a new
 *   key, then one statement inserting the file's row (key, data jsonb) with its pg_notify, 201;
 * - GET /api/files/download?username&folder&file: one GetObject streamed out with Content-Length, 200;
 * - POST /api/files/rename?username&folder&file&newname: one UPDATE of the row with its pg_notify
 *   (the object stays under its key), 201;
 * - POST /api/folders/create?username&folder: one INSERT of a folder row with its pg_notify, 201;
 * - GET /api/folders/files?username&folder: one SELECT of the folder's rows, 200 {files: [{name, size, modifiedAt}]};
 * - POST /api/folders/delete?username&folder: the rows deleted, then their objects (the bench's clean-up).
 * As a daemon's index does, it keeps the names' object keys in memory: a download or a rename
 * reads no row. Its own tables (bare_files, bare_folders) and bucket (a daemon's sweeper deletes
 * objects no row of its names); a daemon's pool size (10, store/postgres/database.ts) and S3
 * client (createS3Client). API-Key compared as a string; no quota, locks, events or LISTEN.
 * A child process, like the daemon: `node --import tsx bench/baselines/bare-cluster-files.ts`
 * with BARE_API_KEY, BARE_DATABASE_URL and BARE_S3_{ENDPOINT,REGION,BUCKET,ACCESS_KEY_ID,SECRET_ACCESS_KEY};
 * prints `listening <port>`.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { apiKey, bucket, deleteObjects, pool, prepareEngines, s3, writeAndNotify } from './bare-cluster-engines.js';
import { serve } from './bare-fs.js';

/** `username/folder/file` → the object key its bytes are under (a daemon's index, in memory). */
const objectKeys = new Map<string, string>();
const folders = new Set<string>();

class Status extends Error {
  constructor(readonly status: number) {
    super(`status ${status}`);
  }
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function param(q: URLSearchParams, name: string): string {
  const value = q.get(name);
  if (!value) throw new Status(400);
  return value;
}

const folderOf = (q: URLSearchParams) => `${param(q, 'username')}/${param(q, 'folder')}`;

/** 23505 (a unique index refused the row) as a 409, as a daemon answers a name taken. */
function conflictOnDuplicate(err: unknown): never {
  throw (err as { code?: string }).code === '23505' ? new Status(409) : err;
}

async function upload(req: http.IncomingMessage, res: http.ServerResponse, q: URLSearchParams): Promise<void> {
  const folder = folderOf(q);
  const name = param(q, 'file');
  if (!folders.has(folder)) throw new Status(404);
  const length = Number(req.headers['content-length']);
  // PutObject streams a body only of a known length (the bench always sends one).
  if (!Number.isSafeInteger(length)) throw new Status(411);
  const id = randomBytes(16).toString('hex');
  const key = `files/${id}`;
  const contentType = 'application/octet-stream';
  const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: req, ContentLength: length, ContentType: contentType }));
  const row = {
    id,
    username: param(q, 'username'),
    folder: param(q, 'folder'),
    name,
    size: length,
    mtimeMs: Date.now(),
    contentType,
    etag: put.ETag,
  };
  try {
    await writeAndNotify('INSERT INTO bare_files (key, data) VALUES ($1, $2::jsonb)', [id, JSON.stringify(row)], { files: [id] });
  } catch (err) {
    // As a daemon does: the object no row names is deleted before the failure is answered.
    await deleteObjects([key]);
    conflictOnDuplicate(err);
  }
  objectKeys.set(`${folder}/${name}`, key);
  json(res, 201, { msg: 'File uploaded', file: { name, size: length } });
}

async function download(res: http.ServerResponse, q: URLSearchParams): Promise<void> {
  const key = objectKeys.get(`${folderOf(q)}/${param(q, 'file')}`);
  if (!key) throw new Status(404);
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': object.ContentLength ?? 0 });
  await pipeline(object.Body as Readable, res);
}

async function rename(res: http.ServerResponse, q: URLSearchParams): Promise<void> {
  const folder = folderOf(q);
  const [from, to] = [`${folder}/${param(q, 'file')}`, `${folder}/${param(q, 'newname')}`];
  const key = objectKeys.get(from);
  if (!key) throw new Status(404);
  if (objectKeys.has(to)) throw new Status(409);
  const id = key.slice('files/'.length);
  const written = await writeAndNotify(
    `UPDATE bare_files SET data = jsonb_set(data, '{name}', to_jsonb($2::text)) || jsonb_build_object('mtimeMs', $3::bigint) WHERE key = $1`,
    [id, param(q, 'newname'), Date.now()],
    { files: [id] },
  ).catch(conflictOnDuplicate);
  if (written !== 1) throw new Status(404);
  objectKeys.delete(from);
  objectKeys.set(to, key);
  json(res, 201, { msg: 'File renamed', file: { name: param(q, 'newname') } });
}

async function createFolder(res: http.ServerResponse, q: URLSearchParams): Promise<void> {
  const id = randomBytes(16).toString('hex');
  const row = { id, username: param(q, 'username'), name: param(q, 'folder'), mtimeMs: Date.now() };
  await writeAndNotify('INSERT INTO bare_folders (key, data) VALUES ($1, $2::jsonb)', [id, JSON.stringify(row)], { folders: [id] }).catch(
    conflictOnDuplicate,
  );
  folders.add(folderOf(q));
  json(res, 201, { msg: 'Folder created', folder: { name: row.name } });
}

async function listing(res: http.ServerResponse, q: URLSearchParams): Promise<void> {
  const { rows } = await pool.query<{ data: { name: string; size: number; mtimeMs: number } }>(
    'SELECT data FROM bare_files WHERE username = $1 AND folder = $2',
    [param(q, 'username'), param(q, 'folder')],
  );
  const files = rows.map(({ data }) => ({ name: data.name, size: data.size, modifiedAt: new Date(data.mtimeMs).toISOString() }));
  json(res, 200, { files });
}

async function deleteFolder(res: http.ServerResponse, q: URLSearchParams): Promise<void> {
  const [username, name, folder] = [param(q, 'username'), param(q, 'folder'), folderOf(q)];
  const { rows } = await pool.query<{ key: string }>('DELETE FROM bare_files WHERE username = $1 AND folder = $2 RETURNING key', [
    username,
    name,
  ]);
  await pool.query('DELETE FROM bare_folders WHERE username = $1 AND name = $2', [username, name]);
  await deleteObjects(rows.map(({ key }) => `files/${key}`));
  for (const path of objectKeys.keys()) if (path.startsWith(`${folder}/`)) objectKeys.delete(path);
  folders.delete(folder);
  json(res, 200, { msg: 'Folder deleted' });
}

async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://bare');
  const q = url.searchParams;
  const op = `${req.method} ${url.pathname}`;
  if (op === 'POST /api/files/upload') return upload(req, res, q);
  req.resume();
  switch (op) {
    case 'GET /api/files/download':
      return download(res, q);
    case 'POST /api/files/rename':
      return rename(res, q);
    case 'POST /api/folders/create':
      return createFolder(res, q);
    case 'GET /api/folders/files':
      return listing(res, q);
    case 'POST /api/folders/delete':
      return deleteFolder(res, q);
    default:
      throw new Status(404);
  }
}

await prepareEngines();
serve(async (req, res) => {
  try {
    if (req.headers['api-key'] !== apiKey) throw new Status(401);
    await route(req, res);
  } catch (err) {
    if (!(err instanceof Status)) {
      process.stderr.write(`bare-cluster-files: ${req.method} ${req.url}: ${(err as Error).stack ?? String(err)}\n`);
      throw err;
    }
    req.resume();
    json(res, err.status, { error: err.message, code: `status_${err.status}` });
  }
});
