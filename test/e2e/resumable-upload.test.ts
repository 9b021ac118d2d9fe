/**
 * Issue 27's journey for resumable uploads, in Chromium through the explorer's own file chooser:
 * a 96 MiB file (made on disk from a fixed seed) goes up through tus (renderer/upload/resumable.ts)
 * to a `nimbus daemon` child process, through a TCP relay that paces what the browser sends (so
 * there is time to act) and can cut every connection. At 30 % the Wi-Fi drops: the browser goes
 * offline (Playwright's setOffline: navigator.onLine false, new requests fail) and the relay cuts
 * the connections (DevTools' offline mode lets a request already sent go on); a few seconds later
 * the browser is online again and the upload goes on from the daemon's acknowledged offset. At
 * 70 % the daemon is SIGKILLed and started again on the same port and data directory: the upload
 * resumes and completes. The uploads panel's bar never falls back to 0, never steps back more
 * than a chunk (16 MiB), never passes 100 and never shows a failure; each interruption costs
 * about a chunk at most; the stored file's SHA-256 (downloaded through the API) is the source's,
 * and the file is listed in the explorer. Each phase's time and the bytes sent again are printed
 * (docs/uploads.md, "Tests", has the figures).
 *
 * What the browser sent is counted by the relay; how far each PATCH got, in the page (its upload
 * progress, as XMLHttpRequest reports it); where each resume began is the daemon's answer to the
 * explorer's HEAD.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIB, hashDownload, writeSeededFile } from '../helpers/big-transfers.js';
import { browserAvailable, ensureRendererBuilt, openSignedIn, type TestBrowser } from '../helpers/browser.js';
import { childEnv, spawnDaemon, type CliRun } from '../helpers/child.js';
import { TEST_KEY } from '../helpers/daemon.js';

const runUi = browserAvailable();
const PASSWORD = 'correct horse battery';
const SIZE = 96 * MIB;
const NAME = 'big.bin';
/** What the relay lets through from the browser (bytes/s): the 96 MiB take some 4 s, time enough to cut them twice. */
const RATE = 24 * MIB;
const OFFLINE_MS = 3000;
/** The explorer's PATCHes carry 16 MiB at most (CHUNK_BYTES, renderer/upload/resumable.ts). */
const CHUNK = 16 * MIB;
/** The waits of a step that a daemon restart or the explorer's retry delays (1 s, then 3 s) may hold up. */
const SLOW = { timeout: 30_000, interval: 50 };

type Daemon = CliRun & { url: string; port: number };

/** `nimbus daemon` on `port` (0: any) and `dataDir`, once it says it listens. */
async function startDaemon(dataDir: string, port: number, env: NodeJS.ProcessEnv): Promise<Daemon> {
  const run = await spawnDaemon(dataDir, env, port);
  return { ...run, port: Number(new URL(run.url).port) };
}

/** A TCP relay from the browser to the daemon: what the browser sends is paced to `rate`, and every connection can be cut. */
interface Relay {
  port: number;
  /** Bytes the browser has sent through the relay so far. */
  received(): number;
  cutAll(): number;
  close(): Promise<void>;
}

async function startRelay(target: () => number, rate: number): Promise<Relay> {
  const open = new Set<net.Socket>();
  /** When the bytes let through so far are due at `rate` (ms, performance.now()), for all connections together. */
  let due = 0;
  let received = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(target(), '127.0.0.1');
    open.add(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
    };
    for (const socket of [client, upstream]) {
      socket.on('close', end);
      socket.on('error', end);
    }
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('data', (chunk: Buffer) => {
      received += chunk.length;
      upstream.write(chunk);
      const now = performance.now();
      due = Math.max(due, now) + (chunk.length / rate) * 1000;
      // Reading stops until the bytes are due: the kernel's buffers fill and the browser waits.
      if (due - now > 5) {
        client.pause();
        setTimeout(() => client.resume(), due - now);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    received: () => received,
    cutAll() {
      const cut = open.size;
      for (const socket of open) socket.destroy();
      return cut;
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * One PATCH as the page saw it, by XMLHttpRequest's upload progress: how far into its body it got,
 * the bytes it handed to the network in all (more, when Chromium resent it on a new connection
 * after its reused one broke), and how it ended (a status, or no answer).
 */
interface PatchSeen {
  reached: number;
  bytes: number;
  outcome: string;
}

/** One value of the panel's bar for the file. */
interface BarSeen {
  at: number;
  now: number;
  text: string;
}

/**
 * Watches, in the page, every request body the explorer sends by XMLHttpRequest (tus-js-client's
 * PATCHes: nothing else sends a Blob by XHR here) and every change of the file's progress bar.
 */
function watchPage(page: Page, name: string): Promise<void> {
  return page.evaluate((name) => {
    const seen = window as unknown as { __patches: PatchSeen[]; __bar: BarSeen[] };
    seen.__patches = [];
    seen.__bar = [];
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
      if (body instanceof Blob) {
        const entry = { reached: 0, bytes: 0, outcome: 'pending' };
        seen.__patches.push(entry);
        let last = 0;
        this.upload.addEventListener('progress', (event) => {
          // Sent from the start again (a resend) when it falls back.
          entry.bytes += event.loaded >= last ? event.loaded - last : event.loaded;
          entry.reached = Math.max(entry.reached, event.loaded);
          last = event.loaded;
        });
        this.addEventListener('loadend', () => (entry.outcome = this.status === 0 ? 'no answer' : String(this.status)));
      }
      send.call(this, body);
    };
    new MutationObserver(() => {
      const bar = document.querySelector(`[role="progressbar"][aria-label="Upload of ${name}"]`);
      if (!bar) return;
      const now = Number(bar.getAttribute('aria-valuenow'));
      const text = bar.getAttribute('aria-valuetext') ?? '';
      const last = seen.__bar.at(-1);
      if (!last || last.now !== now || last.text !== text) seen.__bar.push({ at: performance.now(), now, text });
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuenow', 'aria-valuetext'] });
  }, name);
}

const patchesOf = (page: Page) => page.evaluate(() => (window as unknown as { __patches: PatchSeen[] }).__patches);
const barOf = (page: Page) => page.evaluate(() => (window as unknown as { __bar: BarSeen[] }).__bar);
const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

describe.skipIf(!runUi)('a large upload from the explorer survives a lost network and a daemon restart (Chromium, nimbus daemon)', () => {
  let work = '';
  let dataDir = '';
  let source = '';
  let expected = '';
  let env: NodeJS.ProcessEnv;
  let daemon: Daemon | null = null;
  let relay: Relay | undefined;
  let browser: TestBrowser | undefined;
  let page: Page;
  const pageErrors: string[] = [];
  const admin = (method: string, route: string, headers: Record<string, string> = {}) =>
    fetch(`${daemon!.url}${route}`, { method, headers: { 'API-Key': TEST_KEY, ...headers } });

  beforeAll(async () => {
    await ensureRendererBuilt();
    work = await mkdtemp(path.join(os.tmpdir(), 'nimbus-resumable-e2e-'));
    dataDir = path.join(work, 'data');
    source = path.join(work, NAME);
    expected = await writeSeededFile(source, SIZE);
    // The relay listens first: the daemon must answer its Host (127.0.0.1:<relay port>), the page's origin.
    relay = await startRelay(() => daemon!.port, RATE);
    env = childEnv({
      NIMBUS_API_KEY: TEST_KEY,
      NIMBUS_KEYCHAIN: 'off',
      NIMBUS_RECONCILE_SECONDS: '0',
      NIMBUS_STORAGE_DIR: path.join(dataDir, 'storage'),
      NIMBUS_ALLOWED_HOSTS: `127.0.0.1:${relay.port}`,
    });
    daemon = await startDaemon(dataDir, 0, env);
    const user = await admin('POST', `/api/user/create?username=ana&email=ana@example.com&password=${encodeURIComponent(PASSWORD)}`);
    expect(user.status, await user.text()).toBe(201);
    const seed = await fetch(`${daemon.url}/api/files/upload?username=ana&file=notes.txt`, {
      method: 'POST',
      headers: { 'API-Key': TEST_KEY },
      body: 'a small file, sent in one request\n',
    });
    expect(seed.status, await seed.text()).toBe(201);
    ({ browser, page } = await openSignedIn(`http://127.0.0.1:${relay.port}`, 'ana', PASSWORD, pageErrors));
    await page
      .getByRole('grid', { name: /^Files in ana/ })
      .getByText('notes.txt', { exact: true })
      .waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    daemon?.child.kill('SIGKILL');
    await daemon?.exited;
    await relay?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('goes on after the browser was offline and after a SIGKILL of the daemon, and stores the very bytes', async () => {
    const timings: [string, number][] = [];
    let mark = performance.now();
    const lap = (phase: string) => {
      const now = performance.now();
      timings.push([phase, Math.round(now - mark)]);
      mark = now;
    };
    /** The daemon's answers to the explorer's HEADs (where each resume begins). */
    const heads: { at: number; status: number; offset: number }[] = [];
    /** Each PATCH: when, its Upload-Offset, and what the browser had sent through the relay by then. */
    const patchesSent: { at: number; offset: number; relayed: number }[] = [];
    let uploadPath = '';
    page.on('request', (request) => {
      if (request.method() === 'PATCH' && new URL(request.url()).pathname.startsWith('/api/uploads/')) {
        patchesSent.push({ at: Date.now(), offset: Number(request.headers()['upload-offset']), relayed: relay!.received() });
        uploadPath = new URL(request.url()).pathname;
      }
    });
    page.on('response', (response) => {
      if (response.request().method() === 'HEAD' && new URL(response.url()).pathname.startsWith('/api/uploads/'))
        heads.push({ at: Date.now(), status: response.status(), offset: Number(response.headers()['upload-offset']) });
    });
    /** The PATCH in flight at `moment`, and how far into the file it had got (by the browser's progress). */
    const patchAt = async (moment: number) => {
      const index = patchesSent.filter((patch) => patch.at < moment).length - 1;
      const seen = (await patchesOf(page))[index];
      return { offset: patchesSent[index].offset, reached: patchesSent[index].offset + seen.reached, outcome: seen.outcome };
    };
    /** The furthest into the file any PATCH sent before `moment` got: no resume may start past it. */
    const furthestBefore = async (moment: number) => {
      const seen = await patchesOf(page);
      return Math.max(...patchesSent.filter((patch) => patch.at < moment).map((patch, i) => patch.offset + seen[i].reached));
    };
    /** How the last PATCH so far ended. */
    const lastOutcome = async () => (await patchesOf(page)).at(-1)?.outcome;
    const bar = page.getByRole('region', { name: 'Uploads' }).getByRole('progressbar', { name: `Upload of ${NAME}` });
    const percent = async () => Number(await bar.getAttribute('aria-valuenow'));
    /** The first HEAD answered 200 after `since`, and the PATCH that then went on from its offset. */
    const resumedAfter = async (since: number) => {
      await expect.poll(() => heads.some((head) => head.at >= since && head.status === 200), SLOW).toBe(true);
      const offset = heads.find((head) => head.at >= since && head.status === 200)!.offset;
      await expect.poll(() => patchesSent.some((patch) => patch.at >= since && patch.offset === offset), SLOW).toBe(true);
      return { offset, patch: patchesSent.find((patch) => patch.at >= since && patch.offset === offset)! };
    };

    // Phase 1: the file chosen, sent at RATE until the panel shows 30 %.
    await watchPage(page, NAME);
    const relayedAtStart = relay!.received();
    await page.getByLabel('Choose files to upload').setInputFiles(source);
    await expect.poll(percent, SLOW).toBeGreaterThanOrEqual(30);
    lap('to 30 %');

    // Phase 2: the Wi-Fi gone: the browser offline, its connections cut. The PATCH breaks off (or
    // Chromium resends it at once on a new connection, as its reused one broke, and the daemon
    // answers 409; or the next one, sent offline, fails); the upload waits, neither failed nor
    // retried (tus-js-client alone would fail it).
    const cutAt = Date.now();
    await browser!.context.setOffline(true);
    expect(relay!.cutAll()).toBeGreaterThan(0);
    await expect.poll(lastOutcome, SLOW).toMatch(/^(no answer|409)$/);
    const cut = await patchAt(cutAt);
    await new Promise((resolve) => setTimeout(resolve, OFFLINE_MS - (Date.now() - cutAt)));
    expect(await bar.getAttribute('aria-valuetext')).toMatch(/^\d+% · /);
    expect(heads, 'no request goes while offline').toEqual([]);
    await browser!.context.setOffline(false);
    lap('offline');
    const afterCut = await resumedAfter(cutAt);
    lap('back online to the resumed PATCH');
    // It went on from what the daemon had acknowledged, at most a chunk behind what was sent.
    expect(afterCut.offset).toBeGreaterThanOrEqual(cut.offset);
    expect(afterCut.offset).toBeGreaterThan(0);
    expect(afterCut.offset).toBeLessThanOrEqual(await furthestBefore(afterCut.patch.at));
    /** Sent for the cut in vain: all the browser sent until the resumed PATCH, but what the daemon kept. */
    const againForCut = afterCut.patch.relayed - relayedAtStart - afterCut.offset;

    // Phase 3: at 70 % the daemon is SIGKILLed and started again on the same port and data directory.
    await expect.poll(percent, SLOW).toBeGreaterThanOrEqual(70);
    lap('to 70 %');
    const acked = await admin('HEAD', uploadPath, { 'Tus-Resumable': '1.0.0' });
    expect(acked.status).toBe(200);
    const ackedBeforeKill = Number(acked.headers.get('upload-offset'));
    const killed = daemon!;
    const port = killed.port;
    const killedAt = Date.now();
    killed.child.kill('SIGKILL');
    expect(await killed.exited).toBe('SIGKILL');
    daemon = await startDaemon(dataDir, port, env);
    expect(daemon.port).toBe(port);
    lap('SIGKILL to listening again');
    const afterKill = await resumedAfter(killedAt);
    lap('listening to the resumed PATCH');
    await expect.poll(() => bar.getAttribute('aria-valuetext'), SLOW).toMatch(/^Uploaded/);
    lap('to done');
    const relayedInAll = relay!.received() - relayedAtStart;
    const kill = await patchAt(killedAt);
    // Nothing acknowledged is lost, nothing unacknowledged is taken for stored.
    expect(afterKill.offset).toBeGreaterThanOrEqual(ackedBeforeKill);
    expect(afterKill.offset).toBeGreaterThanOrEqual(afterCut.offset);
    expect(afterKill.offset).toBeGreaterThanOrEqual(kill.offset);
    expect(afterKill.offset).toBeLessThanOrEqual(await furthestBefore(afterKill.patch.at));
    const againForKill = afterKill.patch.relayed - afterCut.patch.relayed - (afterKill.offset - afterCut.offset);
    // Each interruption cost at most about a chunk (what was in flight, and Chromium's resend of it).
    expect(againForCut).toBeLessThan(2 * CHUNK);
    expect(againForKill).toBeLessThan(2 * CHUNK);
    expect(relayedInAll - SIZE).toBeLessThan(4 * CHUNK);

    // The bar: never back to 0 once moving, never back by more than a chunk, never past 100, never
    // a failure, and 100 at the end.
    const values = await barOf(page);
    const firstMoving = values.findIndex((value) => value.now > 0);
    expect(firstMoving).toBeGreaterThanOrEqual(0);
    const moving = values.slice(firstMoving);
    expect(moving.filter((value) => value.now <= 0 || value.now > 100)).toEqual([]);
    const stepsBack = moving.slice(1).map((value, i) => moving[i].now - value.now);
    expect(Math.max(...stepsBack)).toBeLessThanOrEqual(Math.ceil((CHUNK / SIZE) * 100) + 1);
    expect(values.filter((value) => !/^(\d+% · |Uploaded|Waiting)/.test(value.text))).toEqual([]);
    expect(values.at(-1)).toMatchObject({ now: 100, text: expect.stringMatching(/^Uploaded/) });

    // Phase 4: the stored bytes are the source's, and the explorer lists the file.
    const download = await admin('GET', `/api/files/download?username=ana&file=${NAME}`);
    expect(download.status).toBe(200);
    expect(await hashDownload(download)).toEqual({ sha256: expected, bytes: SIZE });
    await page
      .getByRole('grid', { name: /^Files in ana/ })
      .getByText(NAME, { exact: true })
      .waitFor({ timeout: 20_000 });
    expect((await readdir(path.join(dataDir, 'tus'))).filter((file) => file.endsWith('.part'))).toEqual([]);
    lap('checked');
    expect(pageErrors).toEqual([]);

    const patches = await patchesOf(page);
    console.log(
      [
        `resumable upload journey, ${mib(SIZE)} at ${mib(RATE)}/s through the relay:`,
        ...timings.map(([phase, ms]) => `  ${phase}: ${ms} ms`),
        `  offline at ${mib(cut.reached)} sent (PATCH from ${mib(cut.offset)}, ${cut.outcome}): resumed at ${mib(afterCut.offset)}, ${mib(againForCut)} sent in vain`,
        `  SIGKILL at ${mib(kill.reached)} sent (PATCH from ${mib(kill.offset)}), ${mib(ackedBeforeKill)} acknowledged: resumed at ${mib(afterKill.offset)}, ${mib(againForKill)} sent in vain`,
        `  ${patchesSent.length} PATCHes: ${patchesSent.map((patch, i) => `${mib(patch.offset)} ${patches[i].outcome}`).join(', ')}`,
        `  ${mib(relayedInAll)} through the relay in all for ${mib(SIZE)} (${mib(relayedInAll - SIZE)} more); bar values: ${moving.map((value) => value.now).join(' ')}`,
      ].join('\n'),
    );
  }, 150_000);
});
