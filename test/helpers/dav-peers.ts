/**
 * WebDAV servers that Nimbus is measured and checked beside (issue 26): Debian's nginx with its
 * WebDAV modules (`dav_methods` + `libnginx-mod-http-dav-ext` for PROPFIND and OPTIONS) and
 * `rclone serve webdav`, each serving a directory behind HTTP Basic authentication. Each runs as a
 * child with everything it writes (config, logs, temp files) in a temp directory of its own, so
 * nothing reaches the test's or the bench's own output. Used by bench/scenarios/dav.ts and to
 * prove the client helpers (dav-clients.ts, dav-mount.ts) against servers nobody here wrote.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { openSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NGINX, canConnect, freePort } from './nginx.js';
import { RCLONE, rclone } from './dav-clients.js';

export interface PeerServer {
  /** The collection that holds the served directory, with a trailing slash: http://127.0.0.1:<port>/ */
  url: string;
  /** The child, for its pid (RSS, profiles). */
  child: ChildProcess;
  /** Its temp directory: config and the log it writes (log.txt, nginx's error.log). */
  dir: string;
  /** What it wrote, for an error message. */
  log(): Promise<string>;
  /** SIGTERM (SIGKILL after 10 s), then removes its temp directory (never the served one). */
  stop(): Promise<void>;
}

const DAV_EXT_MODULE = '/usr/lib/nginx/modules/ngx_http_dav_ext_module.so';

/** An htpasswd line nginx reads without a crypt(3) it may lack: `{SHA}` and the base64 SHA-1. */
export const htpasswdLine = (user: string, pass: string) => `${user}:{SHA}${createHash('sha1').update(pass).digest('base64')}\n`;

/**
 * nginx's WebDAV module serving `root`, one worker, access log off, no request body size limit.
 * It does not fsync what it stores: say so beside any number measured on it.
 */
export async function startNginxDav(root: string, user: string, pass: string): Promise<PeerServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-nginx-dav-'));
  const port = await freePort();
  await mkdir(path.join(dir, 'body'));
  await writeFile(path.join(dir, 'htpasswd'), htpasswdLine(user, pass));
  const conf = path.join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `load_module ${DAV_EXT_MODULE};
daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
${process.getuid?.() === 0 ? 'user root;' : ''}
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/body;
  fastcgi_temp_path ${dir}/body;
  uwsgi_temp_path ${dir}/body;
  scgi_temp_path ${dir}/body;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port};
    location / {
      root ${root};
      client_max_body_size 0;
      dav_methods PUT DELETE MKCOL COPY MOVE;
      dav_ext_methods PROPFIND OPTIONS;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
      auth_basic "nginx-dav";
      auth_basic_user_file ${dir}/htpasswd;
    }
  }
}
`,
  );
  const child = spawnLogged(NGINX, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], dir);
  const log = async () =>
    `${await readFile(path.join(dir, 'log.txt'), 'utf8').catch(() => '')}${await readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '')}`;
  return ready({ url: `http://127.0.0.1:${port}/`, child, dir, log }, port);
}

/**
 * `rclone serve webdav` of `root` with `--user/--pass` (and `extraArgs`, e.g. `--copy-links` to
 * follow symlinks, which it skips by default). It does not fsync either.
 */
export async function startRcloneServe(root: string, user: string, pass: string, extraArgs: readonly string[] = []): Promise<PeerServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-rclone-serve-'));
  const port = await freePort();
  const args = [
    '--config',
    '/dev/null',
    'serve',
    'webdav',
    root,
    '--addr',
    `127.0.0.1:${port}`,
    '--user',
    user,
    '--pass',
    pass,
    ...extraArgs,
  ];
  const child = spawnLogged(RCLONE, args, dir);
  const log = () => readFile(path.join(dir, 'log.txt'), 'utf8').catch(() => '');
  return ready({ url: `http://127.0.0.1:${port}/`, child, dir, log }, port);
}

/** A child whose stdout and stderr go to `<dir>/log.txt`. */
function spawnLogged(cmd: string, args: string[], dir: string): ChildProcess {
  const out = openSync(path.join(dir, 'log.txt'), 'a');
  return spawn(cmd, args, { stdio: ['ignore', out, out] });
}

/** Waits until the peer accepts a connection (neither prints a ready line we can rely on), then gives its stop(). */
async function ready(peer: Omit<PeerServer, 'stop'>, port: number): Promise<PeerServer> {
  const exited = new Promise<void>((resolve) => peer.child.once('exit', () => resolve()));
  const running = () => peer.child.exitCode === null && peer.child.signalCode === null;
  const stop = async () => {
    if (running()) {
      peer.child.kill('SIGTERM');
      const killer = setTimeout(() => running() && peer.child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(peer.dir, { recursive: true, force: true });
  };
  for (let i = 0; !(await canConnect(port)); i++) {
    if (!running() || i > 300) {
      const log = await peer.log();
      await stop();
      throw new Error(`${peer.child.spawnfile} did not listen on ${port}: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { ...peer, stop };
}

/** rclone's version line ("rclone v1.60.1-DEV"), for the docs and the bench's notes. */
export async function rcloneVersion(): Promise<string> {
  return (await rclone(['version'])).stdout.split('\n')[0].trim();
}
