/**
 * The LISTEN connection lost while it starts (issue 23, item 1, the reconnect path): a server
 * shutting down can send its FATAL in the same read as the answer to LISTEN. The listener
 * must then fail its start (the store retries with backoff) rather than count itself
 * listening on a dead connection and never hear of other daemons again. A relay between the
 * listener and the shared PostgreSQL holds the server's bytes from the LISTEN on, the session
 * is ended meanwhile (pg_terminate_backend: FATAL 57P01), and the relay hands everything over
 * in one write: the answer and the FATAL arrive together.
 */
import net from 'node:net';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CHANGES_CHANNEL, ChangeListener } from '../../daemon/store/postgres/listener.js';
import { sharedPostgres } from '../helpers/engines.js';

interface HoldingRelay {
  port: number;
  /** The server's bytes held since the client sent LISTEN. */
  held(): number;
  /** Whether the server has closed its side. */
  serverGone(): boolean;
  /** Writes what was held in one piece, then closes the client's side. */
  release(): void;
  close(): Promise<void>;
}

async function startHoldingRelay(target: { host: string; port: number }): Promise<HoldingRelay> {
  const sockets = new Set<net.Socket>();
  let held: Buffer[] | null = null;
  let gone = false;
  let downstream: net.Socket | null = null;
  const server = net.createServer((client) => {
    downstream = client;
    const upstream = net.connect(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => {
      if (chunk.includes('LISTEN')) held ??= [];
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => (held ? held.push(chunk) : client.write(chunk)));
    upstream.on('close', () => {
      gone = true;
      if (!held) client.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    held: () => Buffer.concat(held ?? []).length,
    serverGone: () => gone,
    release() {
      downstream?.end(Buffer.concat(held ?? []));
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the LISTEN connection', () => {
  let url: string;
  let relay: HoldingRelay | null = null;
  let listener: ChangeListener | null = null;

  beforeAll(async () => {
    url = await (await sharedPostgres()).createDatabase();
  });

  afterEach(async () => {
    await listener?.stop();
    await relay?.close();
  });

  it('fails its start when the session ends in the same read as the answer to LISTEN', async () => {
    const direct = new URL(url);
    relay = await startHoldingRelay({ host: direct.hostname, port: Number(direct.port) });
    const viaRelay = new URL(url);
    viaRelay.port = String(relay.port);
    const lost: Error[] = [];
    listener = new ChangeListener(
      viaRelay.toString(),
      () => undefined,
      (err) => lost.push(err),
    );
    const started = listener.start().then(
      () => null,
      (err: unknown) => err,
    );
    // CommandComplete (12 bytes) and ReadyForQuery (6): the server has answered LISTEN.
    await vi.waitFor(() => expect(relay!.held()).toBeGreaterThanOrEqual(18));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND datname = current_database()`,
        [`LISTEN ${CHANGES_CHANNEL}`],
      );
      expect(rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    await vi.waitFor(() => expect(relay!.serverGone()).toBe(true));
    relay.release();
    const failure = await started;
    expect(failure).toBeInstanceOf(Error);
    expect(listener.listening).toBe(false);
    // start() reports it; onLost is for a connection that was listening.
    expect(lost).toEqual([]);
  });
});
