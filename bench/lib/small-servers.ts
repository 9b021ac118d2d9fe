/**
 * The servers of bench/scenarios/small-files.ts, each offering the same five operations on small
 * files: Nimbus's API (the bench's daemon; writes as `uploader`, the listing of `big`'s
 * 10,000-file folder), the bare node:http server at the API's own paths with Nimbus's fsyncs
 * (bench/baselines/bare-files.ts; one client, `apiServer`, drives both) and nginx's WebDAV module
 * (PUT, GET, MOVE, MKCOL, PROPFIND Depth 1; test/helpers/dav-peers.ts), which does not fsync.
 * The baselines serve a directory of their own holding a link to `big`'s storage (the same files
 * on disk for every listing) beside the folders they write.
 */
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { startNginxDav } from '../../test/helpers/dav-peers.js';
import { startChild } from './child.js';
import type { Bench } from './context.js';
import { BIG_USER, UPLOAD_USER } from './dataset.js';
import { expectStatus } from './dav-servers.js';
import { ROOT, api } from './nimbus.js';

export type ServerName = 'Nimbus' | 'bare' | 'nginx';

export interface SmallFileServer {
  name: ServerName;
  /** The process that serves (for its CPU time). */
  pid: number;
  createFolder(dir: string): Promise<void>;
  upload(dir: string, file: string, body: Uint8Array<ArrayBuffer>): Promise<void>;
  /** Fetches the file; throws unless it has `size` bytes. */
  download(dir: string, file: string, size: number): Promise<void>;
  rename(dir: string, file: string, newname: string): Promise<void>;
  /** Lists `big`'s big folder; resolves with the number of files listed. */
  listBigFolder(): Promise<number>;
  /** Removes what a round wrote into `dir` (so the disk does not fill over the rounds). */
  clean(dir: string): Promise<void>;
  stop(): Promise<void>;
  /** Where a large file goes up and comes down through the API, for curl (bench/scenarios/big-files.ts); not nginx. */
  urls?: { upload(dir: string, file: string): string; download(dir: string, file: string): string; key: string };
}

const OCTETS = { 'Content-Type': 'application/octet-stream' };

async function expectBytes(res: Response, size: number, what: string): Promise<void> {
  if (res.status !== 200) await expectStatus(res, [200], what);
  const got = (await res.arrayBuffer()).byteLength;
  if (got !== size) throw new Error(`${what} sent ${got} bytes, not ${size}`);
}

/** The operations apiServer offers: a SmallFileServer's but its clean-up, and the listing of any folder. */
export type ApiClient = Omit<SmallFileServer, 'clean' | 'stop' | 'urls'> & {
  urls: NonNullable<SmallFileServer['urls']>;
  /** Lists `username`'s `folder`; resolves with the number of files listed. */
  listFolder(username: string, folder: string): Promise<number>;
};

/**
 * A server of the API's shape (Nimbus or a bare one): the same paths, query names, statuses and
 * key header (bench/scenarios/small-cluster.ts drives the cluster daemon and its bare server with it too).
 */
export function apiServer(name: ServerName, pid: number, base: string, key: string, bigFolder: string): ApiClient {
  const call = (method: string, route: string, params: Record<string, string>, init: RequestInit = {}) =>
    fetch(`${base}${route}?${new URLSearchParams(params)}`, { method, ...init, headers: { 'API-Key': key, ...init.headers } });
  const username = UPLOAD_USER;
  async function listFolder(owner: string, folder: string): Promise<number> {
    const res = await call('GET', '/api/folders/files', { username: owner, folder });
    return (JSON.parse(await expectStatus(res, [200], `${name} listing`)) as { files: unknown[] }).files.length;
  }
  return {
    name,
    pid,
    createFolder: async (folder) =>
      void (await expectStatus(await call('POST', '/api/folders/create', { username, folder }), [201], `${name} folder`)),
    upload: async (folder, file, body) =>
      void (await expectStatus(
        await call('POST', '/api/files/upload', { username, folder, file }, { body, headers: OCTETS }),
        [201],
        `${name} upload`,
      )),
    download: async (folder, file, size) =>
      expectBytes(await call('GET', '/api/files/download', { username, folder, file }), size, `${name} download`),
    rename: async (folder, file, newname) =>
      void (await expectStatus(await call('POST', '/api/files/rename', { username, folder, file, newname }), [201], `${name} rename`)),
    listBigFolder: () => listFolder(BIG_USER, bigFolder),
    listFolder,
    urls: {
      upload: (folder, file) => `${base}/api/files/upload?${new URLSearchParams({ username, folder, file })}`,
      download: (folder, file) => `${base}/api/files/download?${new URLSearchParams({ username, folder, file })}`,
      key,
    },
  };
}

/** The properties dav.ts asks PROPFIND for, so this listing costs nginx what that one does. */
const PROPFIND_BODY =
  '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/><D:getlastmodified/><D:getetag/></D:prop></D:propfind>';

/** nginx's WebDAV module over `root`, reached with HTTP Basic. */
async function nginxServer(root: string, bigFolder: string): Promise<SmallFileServer> {
  const [user, pass] = ['bench', 'bench-small-Pw-3k'];
  const peer = await startNginxDav(root, user, pass);
  const auth = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  const dav = (method: string, url: string, init: RequestInit = {}) =>
    fetch(`${peer.url}${url}`, { method, ...init, headers: { Authorization: auth, ...init.headers } });
  const at = (dir: string, file = '') => `${UPLOAD_USER}/${encodeURIComponent(dir)}/${encodeURIComponent(file)}`;
  return {
    name: 'nginx',
    pid: peer.child.pid ?? -1,
    createFolder: async (dir) => void (await expectStatus(await dav('MKCOL', at(dir)), [201], 'nginx MKCOL')),
    upload: async (dir, file, body) =>
      void (await expectStatus(await dav('PUT', at(dir, file), { body, headers: OCTETS }), [201, 204], 'nginx PUT')),
    download: async (dir, file, size) => expectBytes(await dav('GET', at(dir, file)), size, 'nginx GET'),
    rename: async (dir, file, newname) => {
      const headers = { Destination: `${peer.url}${at(dir, newname)}`, Overwrite: 'F' };
      await expectStatus(await dav('MOVE', at(dir, file), { headers }), [201, 204], 'nginx MOVE');
    },
    async listBigFolder() {
      const headers = { Depth: '1', 'Content-Type': 'application/xml' };
      const text = await expectStatus(
        await dav('PROPFIND', `${BIG_USER}/${encodeURIComponent(bigFolder)}/`, { headers, body: PROPFIND_BODY }),
        [207],
        'nginx PROPFIND',
      );
      // One <response> for the folder itself, one per file.
      return (text.match(/<([A-Za-z0-9]+:)?response[\s>]/g)?.length ?? 0) - 1;
    },
    clean: async (dir) => rmSync(path.join(root, UPLOAD_USER, dir), { recursive: true, force: true }),
    stop: () => peer.stop(),
  };
}

export interface SmallFileServers {
  servers: SmallFileServer[];
  /** Stops every server and removes the baselines' directory (never `big`'s files: only the links to them). */
  stop(): Promise<void>;
}

/** The three servers, the baselines' files in a fresh `<b.root>/small-files`. */
export async function startSmallFileServers(b: Bench): Promise<SmallFileServers> {
  const base = path.join(b.root, 'small-files');
  // Left over when a run with BENCH_DATA was interrupted: the symlinks would be in the way.
  rmSync(base, { recursive: true, force: true });
  const rootOf = (name: string) => {
    const root = path.join(base, name);
    mkdirSync(path.join(root, UPLOAD_USER), { recursive: true });
    symlinkSync(path.join(b.ds.storageDir, BIG_USER), path.join(root, BIG_USER));
    return root;
  };
  const nimbus: SmallFileServer = {
    ...apiServer('Nimbus', b.nimbus.pid, b.nimbus.url, b.nimbus.key, b.ds.bigFolder),
    async clean(folder) {
      await api(b.nimbus, 'POST', '/api/folders/delete', { username: UPLOAD_USER, folder }, 200);
      await api(b.nimbus, 'POST', '/api/trash/empty', { username: UPLOAD_USER }, 200);
    },
    stop: async () => undefined,
  };
  const servers: SmallFileServer[] = [nimbus];
  const stop = async () => {
    for (const s of servers) await s.stop();
    rmSync(base, { recursive: true, force: true });
  };
  try {
    const bareRoot = rootOf('bare');
    const bareTmp = path.join(base, 'bare-tmp');
    mkdirSync(bareTmp);
    const { child, match } = await startChild(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'bench', 'baselines', 'bare-files.ts'), bareRoot, bareTmp],
      /listening (\d+)/,
      { cwd: ROOT, env: { ...process.env, BARE_API_KEY: b.nimbus.key } },
    );
    servers.push({
      ...apiServer('bare', child.pid, `http://127.0.0.1:${match[1]}`, b.nimbus.key, b.ds.bigFolder),
      clean: async (dir) => rmSync(path.join(bareRoot, UPLOAD_USER, dir), { recursive: true, force: true }),
      stop: () => child.stop(),
    });
    servers.push(await nginxServer(rootOf('nginx'), b.ds.bigFolder));
  } catch (err) {
    await stop();
    throw err;
  }
  return { servers, stop };
}
