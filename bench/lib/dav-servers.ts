/**
 * The WebDAV servers of bench/scenarios/dav.ts, each serving the dataset's 10,000-file folder of
 * `big` and a place to write: Nimbus's `/dav/` (the bench's daemon, as the user `big` with a
 * password set for the run), nginx's WebDAV module and `rclone serve webdav` (test/helpers/dav-peers.ts:
 * neither fsyncs) and the bare node:http server with Nimbus's fsyncs (bench/baselines/bare-dav.ts).
 * Every one is reached with the same Basic credential through `dav()`.
 */
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { startNginxDav, startRcloneServe } from '../../test/helpers/dav-peers.js';
import { startChild } from './child.js';
import type { Bench } from './context.js';
import { BIG_USER } from './dataset.js';
import { ROOT, api } from './nimbus.js';

/** The password `big` gets for the run (the dataset's users have none that works). */
const PASSWORD = 'bench-dav-Pw-7q!x';

export interface DavServer {
  name: 'Nimbus' | 'nginx' | 'rclone' | 'bare';
  /** Where PROPFIND finds the big folder and where the writes go: URLs ending in `/`. */
  bigFolder: string;
  writeBase: string;
  /** Empties what the writes of a round left (so the disk does not fill over the rounds). */
  clean(dir: string): Promise<void>;
  stop(): Promise<void>;
  /** The server's process where it is one of ours (Nimbus, the bare server): its turns wait until it is quiet (bench/lib/interleaved.ts). */
  pid?: number;
}

const auth = `Basic ${Buffer.from(`${BIG_USER}:${PASSWORD}`).toString('base64')}`;

/** One request as `big`, with the run's Basic credential. */
export async function dav(
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: string | Uint8Array<ArrayBuffer>,
): Promise<Response> {
  return fetch(url, { method, headers: { Authorization: auth, ...headers }, body });
}

/** The answer's text; throws unless its status is one of `ok`. */
export async function expectStatus(res: Response, ok: number[], what: string): Promise<string> {
  const text = await res.text();
  if (!ok.includes(res.status)) throw new Error(`${what} answered ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

/** The four servers: Nimbus (the bench's daemon, as the user `big`), and the three baselines over their own copy of the writes. */
export async function startServers(b: Bench): Promise<DavServer[]> {
  const me = (await api<{ email: string }>(b.nimbus, 'GET', '/api/user', { username: BIG_USER })).email;
  await api(b.nimbus, 'POST', '/api/user/edit', { username: BIG_USER, newusername: BIG_USER, newemail: me, newpassword: PASSWORD });
  const folderPath = `${BIG_USER}/${encodeURIComponent(b.ds.bigFolder)}/`;
  const nimbus: DavServer = {
    name: 'Nimbus',
    pid: b.nimbus.pid,
    bigFolder: `${b.nimbus.url}/dav/${folderPath}`,
    writeBase: `${b.nimbus.url}/dav/${BIG_USER}/`,
    async clean(dir) {
      await expectStatus(await dav('DELETE', `${this.writeBase}${dir}/`), [200, 204], `DELETE ${dir}`);
      await api(b.nimbus, 'POST', '/api/trash/empty', { username: BIG_USER }, 200);
    },
    stop: async () => undefined,
  };
  // The baselines serve a directory of their own holding a link to `big`'s storage (the same
  // 10,000 files for PROPFIND) beside the folders they write.
  const servers: DavServer[] = [nimbus];
  const peer = (name: DavServer['name'], url: string, root: string, stop: () => Promise<void>): DavServer => ({
    name,
    bigFolder: `${url}${folderPath}`,
    writeBase: url,
    clean: async (dir) => rmSync(path.join(root, dir), { recursive: true, force: true }),
    stop,
  });
  const rootOf = (name: string) => {
    const root = path.join(b.root, 'dav', name);
    // Left by an earlier run on kept data (BENCH_DATA): started afresh.
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    symlinkSync(path.join(b.ds.storageDir, BIG_USER), path.join(root, BIG_USER));
    return root;
  };
  try {
    const nginxRoot = rootOf('nginx');
    const nginx = await startNginxDav(nginxRoot, BIG_USER, PASSWORD);
    servers.push(peer('nginx', nginx.url, nginxRoot, nginx.stop));
    const rcloneRoot = rootOf('rclone');
    const rclone = await startRcloneServe(rcloneRoot, BIG_USER, PASSWORD, ['--copy-links']);
    servers.push(peer('rclone', rclone.url, rcloneRoot, rclone.stop));
    const bareRoot = rootOf('bare');
    const bareTmp = path.join(b.root, 'dav', 'bare-tmp');
    mkdirSync(bareTmp, { recursive: true });
    const { child, match } = await startChild(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'bench', 'baselines', 'bare-dav.ts'), bareRoot, bareTmp, BIG_USER, PASSWORD],
      /listening (\d+)/,
      { cwd: ROOT },
    );
    servers.push({ ...peer('bare', `http://127.0.0.1:${match[1]}/`, bareRoot, () => child.stop()), pid: child.pid });
  } catch (err) {
    for (const s of servers) await s.stop();
    throw err;
  }
  return servers;
}
