/**
 * The web UI's event stream resumes (issue 24): when its connection drops, it reconnects with
 * the id of the last message it had, and the daemon sends what it missed, so the explorer does
 * not fetch its listing again when nothing touched it. The connection is cut by a TCP relay
 * between Chromium and the daemon, as a network would cut it.
 */
import net from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { browserAvailable, ensureRendererBuilt, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const WAIT = { timeout: 20_000, interval: 50 };

/** A TCP relay to the daemon that can cut the connections that carry an event stream. */
interface Relay {
  port: number;
  cutEventStreams(): number;
  close(): Promise<void>;
}

async function startRelay(target: () => number): Promise<Relay> {
  const streams = new Set<net.Socket>();
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target(), '127.0.0.1');
    open.add(client);
    client.on('data', (chunk: Buffer) => {
      // Chromium sends one request at a time on a connection; one asking for the stream keeps it.
      if (chunk.toString('latin1').startsWith('GET /api/events')) streams.add(client);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      streams.delete(client);
      open.delete(client);
    };
    for (const socket of [client, upstream]) {
      socket.on('close', end);
      socket.on('error', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cutEventStreams() {
      const cut = streams.size;
      for (const socket of streams) socket.destroy();
      return cut;
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.skipIf(!runUi)('the explorer’s live updates across a dropped connection (Chromium, real daemon)', () => {
  let t: TestDaemon;
  let relay: Relay;
  let browser: TestBrowser;
  let page: Page;
  /** Every API request the page made, in order (path and query). */
  const requests: string[] = [];
  const rootListings = () => requests.filter((r) => /^\/api\/files\/?\?/.test(r) && !r.includes('folder=')).length;

  beforeAll(async () => {
    await ensureRendererBuilt();
    // The relay listens first: the daemon must answer its Host (127.0.0.1:<relay port>).
    relay = await startRelay(() => t.port);
    t = await startTestDaemon({ env: { NIMBUS_ALLOWED_HOSTS: `127.0.0.1:${relay.port}` } });
    expect((await t.api('POST', '/api/user/create', { username: 'ana', email: 'ana@example.com', password: PASSWORD })).status).toBe(201);
    expect((await t.api('POST', '/api/folders/create', { username: 'ana', folder: 'Docs' })).status).toBe(201);
    await upload(t, 'ana', 'a.txt', 'hello\n');
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) requests.push(`${url.pathname}${url.search}`);
    });
    await page.goto(`http://127.0.0.1:${relay.port}/`);
    await page.getByLabel('Username').fill('ana');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page
      .getByRole('grid', { name: /^Files in ana/ })
      .getByText('a.txt', { exact: true })
      .waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await relay?.close();
  });

  it('reconnects without fetching the listing again when it missed nothing, and still shows what changed after', async () => {
    const streamsOpened = () => requests.filter((r) => r.startsWith('/api/events')).length;
    await vi.waitFor(async () => expect((await t.api('GET', '/api/dash')).body.eventStreams).toBeGreaterThan(0), WAIT);
    await vi.waitFor(() => expect(streamsOpened()).toBeGreaterThan(0), WAIT);
    const opened = streamsOpened();
    const listed = rootListings();

    const reopened = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/events', { timeout: 20_000 });
    expect(relay.cutEventStreams()).toBeGreaterThan(0);
    await reopened;
    expect(streamsOpened()).toBeGreaterThan(opened);

    // A change that touches the folder list and not the root listing: once the page has
    // fetched the folder list for it, whatever the reconnect fetched was fetched before.
    const before = requests.length;
    await upload(t, 'ana', 'later.txt', 'x', { folder: 'Docs' });
    await vi.waitFor(() => expect(requests.slice(before).some((r) => r.startsWith('/api/folders?'))).toBe(true), WAIT);
    expect(rootListings()).toBe(listed);

    // A change to the listing that comes while the stream is down arrives with the replay.
    const again = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/events', { timeout: 20_000 });
    relay.cutEventStreams();
    await upload(t, 'ana', 'missed.txt', 'x');
    await again;
    await page
      .getByRole('grid', { name: /^Files in ana/ })
      .getByText('missed.txt', { exact: true })
      .waitFor();
  });
});
