/**
 * The log (issue 11 §3, README "Logs"): one JSON line per request in <data-dir>/logs/nimbus.log
 * with id, status and time, rotated by size, at the configured level; and never a key, a
 * password or a token, wherever the client put it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, readlink, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startDaemon } from '../../daemon/index.js';
import { handWrittenSink, LOG_KEEP, openDaemonLog } from '../../daemon/logging.js';
import { redactUrl, requestLineJson, requestMessage, type RequestLine } from '../../daemon/http/request-log.js';
import { createUser, startTestDaemon, TEST_KEY, upload, type TestDaemon } from '../helpers/daemon.js';
import { readOutbox, verifyLink } from '../helpers/mail.js';

type Line = Record<string, unknown> & { level: string; msg: string };

const readLog = async (dataDir: string): Promise<{ text: string; lines: Line[] }> => {
  const text = await readFile(path.join(dataDir, 'logs', 'nimbus.log'), 'utf8');
  return {
    text,
    lines: text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line),
  };
};

const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nimbus-logs-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('the log file', () => {
  let t: TestDaemon;
  afterEach(async () => t?.close());

  it('never holds a key, a password or a token, wherever the client sent it', async () => {
    t = await startTestDaemon();
    const secrets: Record<string, string> = {};

    // A key made through the API, used as a Bearer token; the admin key in API-Key.
    const created = await t.api('POST', '/api/keys/create', { label: 'bot', scope: 'admin' });
    expect(created.status).toBe(201);
    secrets.createdKey = created.body.key;
    expect((await t.api('GET', '/api/dash', {}, { key: null, headers: { Authorization: `Bearer ${secrets.createdKey}` } })).status).toBe(
      200,
    );
    secrets.adminKey = TEST_KEY;
    // A wrong key, and a key in the query string (where it does not belong).
    secrets.wrongKey = 'wrong-key-4f9d2c7e1a8b3f6d0e5c';
    expect((await t.api('GET', '/api/dash', {}, { key: secrets.wrongKey })).status).toBe(401);
    secrets.queryKey = 'query-key-b71e3a9c5d2f8e4a6c0b';
    await t.api('GET', '/api/dash', { key: secrets.queryKey, apikey: secrets.queryKey, 'api-key': secrets.queryKey });

    // Passwords in the query (as DaneeCloud's clients send them) and in a form and a JSON body.
    secrets.queryPassword = 'query-password-c3f81d';
    await createUser(t, 'ana', 'ana@example.com', secrets.queryPassword);
    secrets.newPassword = 'new-password-9a7e2b';
    expect(
      (
        await t.api('POST', '/api/user/edit', {
          username: 'ana',
          newusername: 'ana',
          newemail: 'ana@example.com',
          newpassword: secrets.newPassword,
        })
      ).status,
    ).toBe(201);
    secrets.formPassword = 'form-password-5e0d4a';
    const form = await t.raw('POST', '/api/user/create', {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'bob', email: 'bob@example.com', password: secrets.formPassword }).toString(),
    });
    expect(form.status).toBe(201);
    secrets.jsonPassword = 'json-password-1b6f3c';
    const json = await t.raw('POST', '/api/user/create', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'cyd', email: 'cyd@example.com', password: secrets.jsonPassword }),
    });
    expect(json.status).toBe(201);

    // A share link, opened; and an unknown one.
    await upload(t, 'ana', 'notes.txt', 'hello');
    const shared = await t.api('POST', '/api/files/share', { username: 'ana', file: 'notes.txt' });
    const shareUrl = new URL(shared.body.file.shareUrl);
    secrets.shareToken = shareUrl.pathname.split('/').pop()!;
    expect((await t.raw('GET', shareUrl.pathname, { key: null })).status).toBe(200);
    secrets.unknownShareToken = 'Zq3xYw8vUt5sRr2pQo1nMm0l';
    expect((await t.raw('GET', `/s/${secrets.unknownShareToken}`, { key: null })).status).toBe(404);

    // A verification link, opened.
    expect((await t.api('POST', '/api/user/verify', { username: 'ana' })).status).toBe(200);
    const link = verifyLink((await readOutbox(t.dataDir)).at(-1)!)!;
    secrets.verifyToken = link.searchParams.get('token')!;
    const verified = await t.raw('GET', `${link.pathname}${link.search}`, { key: null });
    expect(verified.status).toBe(200);
    const requestId = verified.headers.get('X-Request-Id');
    expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);

    await t.stop();
    const { text, lines } = await readLog(t.dataDir);
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThan(10);
      expect(text, `${name} is in the log`).not.toContain(secret);
    }
    // The password's value is redacted, its name and the other parameters are kept.
    expect(text).toContain('password=[redacted]');
    expect(text).toContain('/s/[redacted]');
    expect(text).toContain('/verify?token=[redacted]');

    const requests = lines.filter((line) => line.reqId !== undefined);
    expect(requests.length).toBeGreaterThanOrEqual(14);
    for (const line of requests) {
      expect(line).toMatchObject({ level: expect.any(String), method: expect.any(String), url: expect.any(String) });
      expect(line.status).toEqual(expect.any(Number));
      expect(line.ms).toEqual(expect.any(Number));
      expect(line).not.toHaveProperty('headers');
    }
    expect(requests.find((line) => line.reqId === requestId)).toMatchObject({
      level: 'info',
      method: 'GET',
      url: '/verify?token=[redacted]',
      status: 200,
    });
    expect(requests.find((line) => line.status === 401)).toMatchObject({ method: 'GET', url: '/api/dash' });
    expect(new Set(requests.map((line) => line.reqId)).size).toBe(requests.length);
  });

  it('gives each answer its request id and its length, JSON written in one step included', async () => {
    t = await startTestDaemon();
    await createUser(t, 'ana');
    const answers = [
      await t.api('GET', '/api/user', { username: 'ana' }),
      await t.api('GET', '/api/files', { username: 'ana', limit: '5' }),
      await t.api('GET', '/api/user', { username: 'nobody' }),
    ];
    await t.stop();
    const { lines } = await readLog(t.dataDir);
    for (const res of answers) {
      const line = lines.find((l) => l.reqId === res.headers.get('X-Request-Id'));
      expect(line).toMatchObject({ status: res.status, bytes: Number(res.headers.get('Content-Length')) });
    }
  });

  it('is private to its owner (the folder 0700, the file 0600), and closed when the daemon stops', async () => {
    t = await startTestDaemon();
    const file = path.join(t.dataDir, 'logs', 'nimbus.log');
    const openOnLog = async () =>
      (await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')))).filter(
        (target) => target === file,
      ).length;
    if (process.platform === 'linux') expect(await openOnLog()).toBe(1);
    await t.stop();
    if (process.platform === 'linux') expect(await openOnLog()).toBe(0);
    expect((await stat(path.join(t.dataDir, 'logs'))).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(t.dataDir, 'logs', 'nimbus.log'))).mode & 0o777).toBe(0o600);
  });

  it('says when the daemon started and stopped, and keeps both runs in one file', async () => {
    t = await startTestDaemon();
    await t.stop();
    await t.restart();
    await t.stop();
    const { lines } = await readLog(t.dataDir);
    const messages = lines.map((line) => line.msg);
    expect(messages.filter((msg) => /^Nimbus \S+ started on http:\/\/127\.0\.0\.1:\d+$/.test(msg))).toHaveLength(2);
    expect(messages.filter((msg) => msg === 'Nimbus stopped')).toHaveLength(2);
  });

  it('receives the warnings that DaemonOptions.log receives', async () => {
    t = await startTestDaemon();
    for (let i = 0; i < 21; i++) await t.api('GET', '/api/dash', {}, { key: `wrong-${i}` });
    await t.stop();
    expect(t.logs.length).toBeGreaterThan(0);
    const { lines } = await readLog(t.dataDir);
    for (const logged of t.logs) expect(lines.some((line) => line.level === 'warn' && line.msg === logged)).toBe(true);
  });

  it('writes why a daemon could not start', async () => {
    t = await startTestDaemon();
    await expect(startDaemon({ port: 0, dataDir: t.dataDir, apiKey: TEST_KEY, env: {}, log: () => undefined })).rejects.toThrow(
      /Another Nimbus daemon/,
    );
    await t.stop();
    const { lines } = await readLog(t.dataDir);
    expect(lines.find((line) => line.level === 'error')?.msg).toMatch(/^Nimbus could not start: Another Nimbus daemon/);
  });
});

describe('levels', () => {
  it('leaves out request lines at NIMBUS_LOG_LEVEL=warn, keeps warnings', async () => {
    const t = await startTestDaemon({ dataDir: await tempDir(), env: { NIMBUS_LOG_LEVEL: 'warn' } });
    await t.api('GET', '/api/dash');
    for (let i = 0; i < 21; i++) await t.api('GET', '/api/dash', {}, { key: `wrong-${i}` });
    await t.stop();
    const { lines } = await readLog(t.dataDir);
    expect(lines.filter((line) => line.reqId !== undefined)).toEqual([]);
    expect(lines.filter((line) => line.level === 'warn').length).toBeGreaterThan(0);
    expect(lines.every((line) => line.level === 'warn')).toBe(true);
  });

  it('takes the option over the variable, and writes nothing at silent', async () => {
    const dataDir = await tempDir();
    const t = await startTestDaemon({ dataDir, env: { NIMBUS_LOG_LEVEL: 'debug' }, logLevel: 'silent' });
    await t.api('GET', '/api/dash');
    await t.stop();
    expect(await readFile(path.join(dataDir, 'logs', 'nimbus.log'), 'utf8')).toBe('');
  });

  it('refuses an unknown level, naming the choices', async () => {
    await expect(
      startDaemon({ port: 0, dataDir: await tempDir(), env: { NIMBUS_LOG_LEVEL: 'loud' }, log: () => undefined }),
    ).rejects.toThrow('Invalid NIMBUS_LOG_LEVEL: loud (one of trace, debug, info, warn, error, fatal, silent)');
  });
});

describe('rotation', () => {
  it('writes a request line by hand exactly as pino writes the same fields', async () => {
    const dataDir = await tempDir();
    const log = openDaemonLog({ dataDir, level: 'debug', terminal: null });
    const sink = handWrittenSink(log.logger)!;
    const escaped: RequestLine = {
      reqId: 'ab12cd34-1',
      method: 'GET',
      url: '/api/files?q="quoted" \\ ü \u0001 \ud800 😀',
      status: 200,
      ms: 0.4,
      bytes: undefined,
      ip: '::1',
      aborted: true,
    };
    const plain: RequestLine = {
      reqId: 'x',
      method: 'GET',
      url: '/api/health',
      status: 503,
      ms: 12,
      bytes: 81,
      ip: undefined,
      aborted: undefined,
    };
    sink.write(requestLineJson('info', escaped));
    log.logger.info(escaped, requestMessage(escaped));
    sink.write(requestLineJson('debug', plain));
    log.logger.debug(plain, requestMessage(plain));
    log.close();
    const { lines } = await readLog(dataDir);
    const withoutTime = ({ time, ...rest }: Line) => {
      expect(time).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
      return rest;
    };
    expect(lines).toHaveLength(4);
    expect(withoutTime(lines[0])).toEqual(withoutTime(lines[1]));
    expect(withoutTime(lines[2])).toEqual(withoutTime(lines[3]));
    expect(Object.keys(lines[0])).toEqual(Object.keys(lines[1]));
    expect(Object.keys(lines[2])).toEqual(Object.keys(lines[3]));
    expect(lines[0].msg).toBe('GET /api/files?q="quoted" \\ ü \u0001 \ud800 😀 200 0.4ms (aborted)');
  });

  it('moves a full file to nimbus.1.log, shifts older ones, keeps five, all 0600', async () => {
    const dataDir = await tempDir();
    const log = openDaemonLog({ dataDir, level: 'info', terminal: null, rotateBytes: 1000 });
    // Lines are written in batches (every 50 ms); a file is rotated after the batch that fills it.
    for (let i = 0; i < 200; i++) {
      log.logger.info({ i }, `line ${i} ${'x'.repeat(40)}`);
      if (i % 20 === 19) await new Promise((resolve) => setTimeout(resolve, 70));
    }
    log.close();
    log.logger.info('after close: dropped');
    const names = (await readdir(log.dir)).sort();
    expect(names).toEqual(['nimbus.1.log', 'nimbus.2.log', 'nimbus.3.log', 'nimbus.4.log', 'nimbus.5.log', 'nimbus.log']);
    expect(LOG_KEEP).toBe(5);
    const numbers = async (name: string) =>
      (await readFile(path.join(log.dir, name), 'utf8'))
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { i: number }).i);
    // Oldest to newest, the files hold one unbroken run of lines ending with the last one.
    const kept = (
      await Promise.all(['nimbus.5.log', 'nimbus.4.log', 'nimbus.3.log', 'nimbus.2.log', 'nimbus.1.log', 'nimbus.log'].map(numbers))
    ).flat();
    expect(kept.at(-1)).toBe(199);
    expect(kept).toEqual(kept.map((_, i) => kept[0] + i));
    expect(kept[0]).toBeGreaterThan(0); // the oldest were dropped
    for (const name of names) {
      const info = await stat(path.join(log.dir, name));
      expect(info.mode & 0o777, name).toBe(0o600);
      expect(info.size, name).toBeLessThan(1000 + 20 * 150); // the limit, plus at most one batch
    }
    expect(await readFile(path.join(log.dir, 'nimbus.log'), 'utf8')).not.toContain('dropped');
  });

  it('keeps lines whole and in order around one longer than its buffer, in UTF-8, to the file and the terminal', async () => {
    const dataDir = await tempDir();
    const echoed: Buffer[] = [];
    const terminal = new Writable({
      write(chunk: Buffer, _encoding, done) {
        echoed.push(Buffer.from(chunk));
        done();
      },
    });
    const log = openDaemonLog({ dataDir, level: 'info', terminal });
    const long = `ü😀${'x'.repeat(300_000)}`;
    for (let i = 0; i < 2000; i++) log.logger.info({ i }, `line ${i} — ü`);
    log.logger.error(long);
    log.logger.info('after');
    log.close();
    const { text, lines } = await readLog(dataDir);
    expect(lines.map((l) => l.msg)).toEqual([...Array.from({ length: 2000 }, (_, i) => `line ${i} — ü`), long, 'after']);
    expect(Buffer.concat(echoed).toString('utf8')).toBe(text);
  });

  it('writes the lines still waiting when the process exits without closing the log', async () => {
    const dataDir = await tempDir();
    const script = `const { openDaemonLog } = await import(${JSON.stringify(path.resolve('daemon/logging.ts'))});
      openDaemonLog({ dataDir: process.argv[1], level: 'info', terminal: null }).logger.warn('last words');
      process.exit(3);`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dataDir], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(3);
    expect(await readFile(path.join(dataDir, 'logs', 'nimbus.log'), 'utf8')).toContain('"msg":"last words"');
  });

  it('appends to the current file across restarts', async () => {
    const dataDir = await tempDir();
    for (const run of [1, 2]) {
      const log = openDaemonLog({ dataDir, level: 'info', terminal: null });
      log.logger.info(`run ${run}`);
      log.close();
    }
    const text = await readFile(path.join(dataDir, 'logs', 'nimbus.log'), 'utf8');
    expect(text).toMatch(/run 1[\s\S]*run 2/);
  });
});

describe('redactUrl', () => {
  it.each([
    ['/api/user/create?username=ana&password=hunter2&email=a%40b.c', '/api/user/create?username=ana&password=[redacted]&email=a%40b.c'],
    ['/api/user/edit?username=ana&newpassword=x&newusername=ana', '/api/user/edit?username=ana&newpassword=[redacted]&newusername=ana'],
    ['/verify?token=abc', '/verify?token=[redacted]'],
    [
      '/api/dash?key=k&apikey=k&api-key=k&API_KEY=k&api%2Dkey=k',
      '/api/dash?key=[redacted]&apikey=[redacted]&api-key=[redacted]&API_KEY=[redacted]&api%2Dkey=[redacted]',
    ],
    ['/api/x?Password=p&session=s&secret=s&auth=a', '/api/x?Password=[redacted]&session=[redacted]&secret=[redacted]&auth=[redacted]'],
    ['/s/AbCdEfGhIjKlMnOpQrSt', '/s/[redacted]'],
    ['/s/AbCdEfGhIjKlMnOpQrSt/', '/s/[redacted]/'],
    ['//s/AbCdEfGh?x=1', '//s/[redacted]?x=1'],
    ['/api/files?username=ana&folder=s', '/api/files?username=ana&folder=s'],
    ['/assets/index.js', '/assets/index.js'],
    ['/api/x?password', '/api/x?password'],
  ])('%s → %s', (raw, logged) => {
    expect(redactUrl(raw)).toBe(logged);
  });

  it('cuts very long URLs', () => {
    expect(redactUrl(`/api/${'a'.repeat(5000)}`).length).toBeLessThanOrEqual(2049);
  });
});
