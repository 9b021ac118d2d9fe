/**
 * Helpers for tests of several daemons on one PostgreSQL database and one bucket (issue 14,
 * docs/cluster.md): the bucket seen directly (its objects, an object put behind the daemons'
 * backs), an event stream read until a given event arrives, and a wait for a condition that
 * another daemon makes true through its notifications (no timing is asserted: only that it
 * happens before a generous deadline).
 */
import { ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../../daemon/storage/objects/s3-client.js';

/** The bucket named by a cluster env (clusterEnv()'s NIMBUS_S3_* variables), seen without a daemon. */
export interface Bucket {
  client: S3Client;
  name: string;
  /** Every key under `prefix` (default `files/`), sorted. */
  keys(prefix?: string): Promise<string[]>;
  /** Puts an object directly (an orphan no row names, for the sweeper). */
  put(key: string, body: string | Buffer): Promise<void>;
  close(): void;
}

export function bucketOf(env: Record<string, string>): Bucket {
  const client = createS3Client({
    endpoint: env.NIMBUS_S3_ENDPOINT,
    region: env.NIMBUS_S3_REGION,
    accessKeyId: env.NIMBUS_S3_ACCESS_KEY_ID,
    secretAccessKey: env.NIMBUS_S3_SECRET_ACCESS_KEY,
    forcePathStyle: true,
  });
  const name = env.NIMBUS_S3_BUCKET;
  return {
    client,
    name,
    async keys(prefix = 'files/') {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: name, Prefix: prefix, ContinuationToken: token }));
        for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    async put(key, body) {
      await client.send(new PutObjectCommand({ Bucket: name, Key: key, Body: body }));
    },
    close: () => client.destroy(),
  };
}

/**
 * Polls `check` until it returns a value that is not undefined/false, or throws after
 * `timeoutMs` with `what` and the last value seen. For what another daemon learns through
 * a notification: it comes soon, not at once.
 */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not so after ${timeoutMs} ms (last: ${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** An open GET /api/events stream: everything received so far, and a wait for a matching message. */
export interface EventStream {
  /** The raw text received so far. */
  text(): string;
  /** Resolves once the received text matches `pattern` (rejects if the stream ends first, or after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  close(): void;
}

/** Opens an event stream at `baseUrl` with the API key; resolves once the daemon answered 200. */
export async function openEvents(baseUrl: string, key: string): Promise<EventStream> {
  const controller = new AbortController();
  const res = await fetch(`${baseUrl}/api/events`, { headers: { 'API-Key': key }, signal: controller.signal });
  if (res.status !== 200) throw new Error(`GET /api/events: ${res.status} ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let received = '';
  let ended: Error | null = null;
  const waiters = new Set<() => void>();
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        received += decoder.decode(value, { stream: true });
        for (const wake of waiters) wake();
      }
      ended = new Error('the event stream ended');
    } catch (err) {
      ended = err as Error;
    }
    for (const wake of waiters) wake();
  })();
  return {
    text: () => received,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no event matching ${pattern} within ${timeoutMs} ms; received: ${received.slice(-2000)}`));
        }, timeoutMs);
        function check() {
          if (pattern.test(received)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(received);
          } else if (ended) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`${ended.message} before an event matching ${pattern}; received: ${received.slice(-2000)}`));
          }
        }
        waiters.add(check);
        check();
      });
    },
    close: () => controller.abort(),
  };
}
