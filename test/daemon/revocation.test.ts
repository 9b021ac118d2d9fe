/**
 * Revoking a credential (deleting a key, rotating the admin key) closes what it opened:
 * its event streams end and every connection that carried one of its requests is closed,
 * while other keys' streams and connections go on.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { onDisk } from '../helpers/backend.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openEventStream, type EventStream } from '../helpers/events.js';

const WAIT = { timeout: 10_000, interval: 25 };

/** Opens GET /api/events with a key and waits until the daemon has said it is connected. */
async function openEvents(t: TestDaemon, key: string): Promise<EventStream> {
  const stream = await openEventStream(t.url, { 'API-Key': key });
  await vi.waitFor(() => expect(stream.text()).toContain(': connected'), WAIT);
  return stream;
}

interface AgentResponse {
  status: number;
  body: string;
  socket: Socket;
}

/** One request through a keep-alive agent, so the connection stays open after it. */
function agentRequest(t: TestDaemon, agent: http.Agent, method: string, path: string, key: string): Promise<AgentResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: t.port, method, path, agent, headers: { 'API-Key': key } }, (res) => {
      // The agent takes the socket back at the end of the response: keep hold of it now.
      const socket = res.socket;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socket }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Whether a socket has closed (a socket the agent keeps idle closes when the daemon closes it). */
function watchClose(socket: Socket): () => boolean {
  let closed = socket.destroyed;
  socket.once('close', () => (closed = true));
  return () => closed;
}

describe('deleting a key', () => {
  let t: TestDaemon;
  beforeAll(async () => {
    t = await startTestDaemon();
    await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: 'password1' });
  });
  afterAll(() => t.close());

  it('ends the event streams opened with it, closes its keep-alive connections, and leaves other keys’ alone', async () => {
    const created = await t.api('POST', '/api/keys/create', { label: 'reader', scope: 'read' });
    expect(created.status).toBe(201);
    const readKey = created.body.key as string;

    const readerStream = await openEvents(t, readKey);
    const adminStream = await openEvents(t, t.key);
    const readerAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const adminAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const readerGet = await agentRequest(t, readerAgent, 'GET', '/api/dash', readKey);
      expect(readerGet.status).toBe(200);
      const readerSocketClosed = watchClose(readerGet.socket);
      const adminGet = await agentRequest(t, adminAgent, 'GET', '/api/dash', t.key);
      expect(adminGet.status).toBe(200);
      const adminSocketClosed = watchClose(adminGet.socket);

      expect((await t.api('POST', '/api/keys/delete', { label: 'reader' })).status).toBe(200);

      await vi.waitFor(() => expect(readerStream.ended()).toBe(true), WAIT);
      await vi.waitFor(() => expect(readerSocketClosed()).toBe(true), WAIT);
      // The admin key's keep-alive connection is untouched: the same socket answers again
      // (asked at once, well within the daemon's keep-alive timeout).
      expect(adminSocketClosed()).toBe(false);
      const again = await agentRequest(t, adminAgent, 'GET', '/api/dash', t.key);
      expect(again.status).toBe(200);
      expect(again.socket).toBe(adminGet.socket);
      expect((await t.api('GET', '/api/dash', {}, { key: readKey })).status).toBe(401);

      // The admin key's stream goes on: the next change still arrives.
      expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'after-delete' })).status).toBe(201);
      await vi.waitFor(() => expect(adminStream.text()).toContain('after-delete'), WAIT);
      expect(adminStream.ended()).toBe(false);
    } finally {
      readerStream.close();
      adminStream.close();
      readerAgent.destroy();
      adminAgent.destroy();
    }
  });
});

// A key file of the daemon's own: cluster daemons share NIMBUS_API_KEY instead (docs/cluster.md),
// and a key set that way is not rotated.
onDisk(() => {
  describe('rotating the admin key (kept in the key file)', () => {
    let t: TestDaemon;
    beforeAll(async () => {
      t = await startTestDaemon({ apiKey: undefined, env: { NIMBUS_KEYCHAIN: 'off' } });
    });
    afterAll(() => t.close());

    it('answers the rotate request, then ends the old key’s streams and closes its connections', async () => {
      const oldKey = t.daemon.adminKey();
      const stream = await openEvents(t, oldKey);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const before = await agentRequest(t, agent, 'GET', '/api/dash', oldKey);
        expect(before.status).toBe(200);
        const socketClosed = watchClose(before.socket);

        // The rotate goes over that same connection: its answer must arrive before it closes.
        const rotated = await agentRequest(t, agent, 'POST', '/api/keys/rotate', oldKey);
        expect(rotated.status).toBe(201);
        expect(rotated.socket).toBe(before.socket);
        const newKey = JSON.parse(rotated.body).key as string;
        expect(newKey).toBe(t.daemon.adminKey());
        expect(newKey).not.toBe(oldKey);

        await vi.waitFor(() => expect(stream.ended()).toBe(true), WAIT);
        await vi.waitFor(() => expect(socketClosed()).toBe(true), WAIT);
        expect((await t.api('GET', '/api/dash', {}, { key: oldKey })).status).toBe(401);
        expect((await t.api('GET', '/api/dash', {}, { key: newKey })).status).toBe(200);
        const fresh = await openEvents(t, newKey);
        expect(fresh.status).toBe(200);
        fresh.close();
      } finally {
        stream.close();
        agent.destroy();
      }
    });
  });
});
