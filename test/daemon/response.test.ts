/**
 * NimbusResponse (daemon/http/response.ts): the one-step JSON answer of issue 15 gives the
 * same bytes a client saw before — every security header once, the request id, the exact
 * length — and still closes its connection when it is answered while the daemon shuts down.
 * Over real HTTP on a real daemon; the plain-server fallback (security.ts) on a Koa app
 * mounted on node:http's own ServerResponse.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHostAndCors } from '../../daemon/http/security.js';
import { createUser, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

describe('a JSON answer written in one step', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
    await createUser(t, 'ana');
  });
  afterAll(() => t.close());

  it('sends each header once, in the raw bytes', async () => {
    const raw = await rawExchange(t.port, `GET /api/user?username=ana HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAPI-Key: ${t.key}\r\n\r\n`);
    const [head, body] = raw.split('\r\n\r\n');
    const names = head
      .split('\r\n')
      .slice(1)
      .map((line) => line.slice(0, line.indexOf(':')).toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'x-content-type-options',
        'x-frame-options',
        'referrer-policy',
        'cross-origin-resource-policy',
        'cross-origin-opener-policy',
        'content-security-policy',
        'cache-control',
        'x-request-id',
        'content-type',
        'content-length',
      ]),
    );
    expect(head).toMatch(new RegExp(`\\r\\ncontent-length: ${Buffer.byteLength(body)}(\\r\\n|$)`, 'i'));
    expect(JSON.parse(body)).toMatchObject({ username: 'ana' });
  });

  it('keeps a header the handler gave (X-Total-Count) beside the defaults', async () => {
    const res = await t.api('GET', '/api/user/all', { limit: '1' });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('X-Total-Count'))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
  });
});

describe('an idle keep-alive connection', () => {
  it('stays open past Node’s 5 s default, so a proxy that keeps it 60 s never sends into a closing socket', async () => {
    const t = await startTestDaemon();
    try {
      const socket = net.connect(t.port, '127.0.0.1');
      let text = '';
      let closed = false;
      socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
      socket.on('close', () => (closed = true));
      const ask = `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\n\r\n`;
      socket.write(ask);
      await expect.poll(() => text, { timeout: 5_000 }).toMatch(/^HTTP\/1\.1 200/);
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(closed).toBe(false);
      text = '';
      socket.write(ask);
      await expect.poll(() => text, { timeout: 5_000 }).toMatch(/^HTTP\/1\.1 200/);
      socket.destroy();
    } finally {
      await t.close();
    }
  }, 20_000);
});

describe('an answer while the daemon shuts down', () => {
  it('closes its keep-alive connection, also when written in one step', async () => {
    const t = await startTestDaemon();
    try {
      await createUser(t, 'ana');
      // A POST whose body is still coming holds the request in flight across the close.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const [first, rest] = ['{"username":"ana",', '"folder":"late"}'];
      const answer = new Promise<http.IncomingMessage & { text?: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: t.port,
            method: 'POST',
            path: '/api/folders/create',
            agent,
            headers: { 'API-Key': t.key, 'Content-Type': 'application/json', 'Content-Length': String(first.length + rest.length) },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res));
          },
        );
        req.on('error', reject);
        req.write(first);
        setTimeout(() => {
          const stopping = t.stop();
          // The server has stopped listening by now; the rest of the body comes after.
          setTimeout(() => req.end(rest), 100);
          void stopping;
        }, 100);
      });
      const res = await answer;
      expect(res.statusCode).toBe(201);
      expect(res.headers.connection).toBe('close');
      agent.destroy();
    } finally {
      await t.close();
    }
  });
});

describe('a Koa app on a plain node:http server', () => {
  it('still gets the security headers from the guard', async () => {
    const app = new Koa();
    let port = 0;
    app.use(checkHostAndCors(() => new Set([`127.0.0.1:${port}`]), []));
    app.use((ctx) => {
      ctx.body = { ok: true };
    });
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`);
      expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
      expect(res.headers.get('Content-Security-Policy')).toMatch(/default-src 'none'/);
    } finally {
      server.close();
    }
  });
});

/** Sends `request` as it is and returns everything the server sent until it closed or went quiet. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new net.Socket();
    let text = '';
    socket.connect(port, '127.0.0.1', () => socket.end(request.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')));
    socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}
