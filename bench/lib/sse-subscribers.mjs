// The event-stream row's subscribers (bench/scenarios/events.ts), in processes of their own so
// their parsing costs the bench process nothing and the daemon only what it costs real clients.
// `node bench/lib/sse-subscribers.mjs <config-json>`; config: {url, key, subscribers, changes,
// username, prefix, spacingMs, giveUpMs, trigger, out}. It opens `subscribers` GET /api/events
// streams (each its own socket), prints `CONNECTED <ms>` and waits for `GO` on stdin. The one
// started with `trigger` then makes `changes` changes, one every `spacingMs`: POST
// /api/folders/create of folder `<prefix><i>` in `username`'s storage, noting the wall-clock
// time (performance.timeOrigin + now, one clock for every process on the machine) each request
// is sent. Every stream parses its messages as an EventSource would and notes when
// `folder.added` of each folder arrives, on the same clock. It writes {connectMs, connectEachMs,
// receivedAt: [change][subscriber] (null: never arrived), sentAt, statuses, answeredMs (the
// change's answer), otherMessages, cpuMs and connectCpuMs (its own CPU: in all, and to open the
// streams)} to `out` and prints `DONE`.
// Plain JavaScript, run by node without tsx: no loader in the way of the receiving loop.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';

const config = JSON.parse(process.argv[2]);
const { url, key, subscribers, changes, username, prefix, spacingMs, giveUpMs, trigger: triggers, out } = config;
/** Streams opened at once while connecting (more would only queue in the listen backlog). */
const CONNECT_CONCURRENCY = 50;

const receivedAt = Array.from({ length: changes }, () => new Array(subscribers).fill(null));
const sentAt = new Array(changes).fill(0);
const changeOf = new Map(Array.from({ length: changes }, (_, i) => [`${prefix}${i}`, i]));
const statuses = new Array(changes).fill(0);
const answeredMs = new Array(changes).fill(null);
const streams = [];
let received = 0;
let otherMessages = 0;

const target = new URL(url);
/** Wall-clock ms, comparable between processes. */
const wall = () => performance.timeOrigin + performance.now();
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Opens stream `s` on a TCP connection of its own, as a bare HTTP/1.1 client: node:http's
 * client costs about twice the CPU per message, and with 1,000 streams in one process every
 * microsecond here is 1 ms added to the last stream's latency. Resolves once the daemon's
 * `: connected` comment has arrived.
 */
function subscribe(s) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(Number(target.port), target.hostname);
    socket.setNoDelay(true);
    streams.push(socket);
    let head = null; // the response head, once whole
    let chunked = false;
    let pending = Buffer.alloc(0); // bytes not yet taken apart
    let text = ''; // SSE text not yet a whole message
    let connected = false;
    socket.on('connect', () => {
      socket.write(`GET /api/events HTTP/1.1\r\nHost: ${target.host}\r\nAPI-Key: ${key}\r\nAccept: text/event-stream\r\n\r\n`);
    });
    socket.on('error', (err) => (connected ? undefined : reject(err)));
    socket.on('data', (data) => {
      const now = wall();
      pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
      if (head === null) {
        const end = pending.indexOf(HEAD_END);
        if (end < 0) return;
        head = pending.toString('latin1', 0, end);
        pending = pending.subarray(end + 4);
        if (!head.startsWith('HTTP/1.1 200 ')) {
          reject(new Error(`GET /api/events answered ${head.split('\r\n')[0]}`));
          socket.destroy();
          return;
        }
        chunked = /\r\ntransfer-encoding: chunked\r\n/i.test(`${head}\r\n`);
      }
      // The body: chunks (`<hex length>\r\n<bytes>\r\n`) as node:http frames them, or bare.
      if (!chunked) {
        text += pending.toString();
        pending = Buffer.alloc(0);
      } else {
        for (;;) {
          const line = pending.indexOf(CRLF);
          if (line < 0) break;
          const size = parseInt(pending.toString('latin1', 0, line), 16);
          if (pending.length < line + 2 + size + 2) break;
          text += pending.toString('utf8', line + 2, line + 2 + size);
          pending = pending.subarray(line + 4 + size);
        }
      }
      let end;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const message = text.slice(0, end);
        text = text.slice(end + 2);
        if (!connected && message.startsWith(': connected')) {
          connected = true;
          resolve(performance.now() - started);
        }
        onMessage(s, message, now);
      }
    });
  });
}

/** One SSE message: its `event:` and `data:` lines, as EventSource reads them. */
function onMessage(s, message, now) {
  let event = null;
  let data = null;
  for (const line of message.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data = line.slice(6);
  }
  if (event === null || data === null) return;
  const parsed = JSON.parse(data);
  const i = event === 'folder.added' && parsed.username === username ? changeOf.get(parsed.folder) : undefined;
  if (i === undefined) {
    otherMessages++;
    return;
  }
  if (receivedAt[i][s] === null) {
    receivedAt[i][s] = now;
    received++;
  }
}

const trigger = new http.Agent({ keepAlive: true, maxSockets: 1 });

function change(i) {
  const query = new URLSearchParams({ username, folder: `${prefix}${i}` }).toString();
  return new Promise((resolve) => {
    const req = http.request(
      `${url}/api/folders/create?${query}`,
      { method: 'POST', headers: { 'API-Key': key }, agent: trigger },
      (res) => {
        statuses[i] = res.statusCode;
        answeredMs[i] = wall() - sentAt[i];
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', (err) => {
      statuses[i] = String(err.message);
      resolve();
    });
    sentAt[i] = wall();
    req.end();
  });
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const t0 = performance.now();
const connectEachMs = new Array(subscribers);
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(CONNECT_CONCURRENCY, subscribers) }, async () => {
    while (next < subscribers) {
      const s = next++;
      connectEachMs[s] = await subscribe(s);
    }
  }),
);
const connectMs = performance.now() - t0;
const connectCpuMs = cpuMs();
process.stdout.write(`CONNECTED ${connectMs.toFixed(1)}\n`);
// Every process's streams open before the first change; GO comes once they all are.
await new Promise((resolve) => {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d) => {
    input += d;
    if (input.includes('GO\n')) resolve();
  });
});

const started = performance.now();
const answers = [];
if (triggers) {
  // Let the last streams' handshakes settle before the first change.
  await sleep(500);
  for (let i = 0; i < changes; i++) {
    answers.push(change(i));
    await sleep(spacingMs);
  }
}
await Promise.all(answers);
const deadline = started + 500 + changes * spacingMs + giveUpMs;
while (received < changes * subscribers && performance.now() < deadline) await sleep(20);

writeFileSync(
  out,
  JSON.stringify({ connectMs, connectEachMs, receivedAt, sentAt, statuses, answeredMs, otherMessages, cpuMs: cpuMs(), connectCpuMs }),
);
process.stdout.write('DONE\n');
for (const socket of streams) socket.destroy();
trigger.destroy();
process.exit(0);
