/**
 * The download baseline: Debian's nginx serving the storage directory on loopback with
 * sendfile, one worker process (the daemon is one process too), access log off.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawnChild, type Child } from '../lib/child.js';
import { pollUntil, request } from '../lib/nimbus.js';

export const NGINX = '/usr/sbin/nginx';

export interface Nginx {
  child: Child;
  url: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Starts nginx with `root` as its document root; `probe` is a path that must answer 200. */
export async function startNginx(workDir: string, root: string, probe: string): Promise<Nginx> {
  const dir = path.join(workDir, 'nginx');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 256; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port};
    root ${root};
  }
}
`,
  );
  // nginx prints nothing when ready: start it, then poll.
  const child = spawnChild(NGINX, ['-p', dir, '-c', conf]);
  const url = `http://127.0.0.1:${port}`;
  try {
    await pollUntil(
      async () => {
        if (child.proc.exitCode !== null) throw new Error(`nginx exited: ${child.stderr()}`);
        return (await request('HEAD', `${url}${probe}`, null)).status === 200 ? true : undefined;
      },
      10_000,
      20,
    );
  } catch (err) {
    await child.stop();
    throw new Error(`nginx did not start: ${(err as Error).message} ${child.stderr()}`);
  }
  return { child, url };
}
