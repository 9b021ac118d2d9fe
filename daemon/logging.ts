/**
 * The daemon's log (README, "Logs"): pino, one logger per running daemon, writing JSON lines
 * to `<data-dir>/logs/nimbus.log` (rotated by size: nimbus.1.log … nimbus.5.log are the older
 * ones) and echoing to stderr (pretty on a terminal, JSON lines otherwise).
 *
 * The file is written by this module in the daemon's thread, not through pino-roll or a
 * transport: transports run in a worker thread per logger (tests start hundreds of daemons in
 * one process), and pino-roll's import alone costs ~130 ms (date-fns) and gives the current
 * file a new name at every roll. Lines are appended with one synchronous write every 50 ms
 * (a few µs a line), flushed at close and at exit, and closing is one close(2).
 */
import path from 'node:path';
import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { LineBuffer } from './util/line-buffer.js';
import { RotatingFile } from './util/rotating-file.js';

export type { Logger };

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The current file's name; older ones are `nimbus.1.log` (newest) to `nimbus.<LOG_KEEP>.log`. */
export const LOG_FILE = 'nimbus.log';
/** A file is rotated once it passes this size… */
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
/** …and this many older files are kept: at most (1 + 5) × 10 MiB = 60 MiB of logs. */
export const LOG_KEEP = 5;

/** `<data-dir>/logs`: what `nimbus paths` prints and the tray's "Open log folder" opens. */
export function logDirOf(dataDir: string): string {
  return path.join(dataDir, 'logs');
}

/** Parses a level name; throws a message naming `source` (the flag or variable) and the choices. */
export function parseLogLevel(raw: string | undefined, source: string): LogLevel | undefined {
  if (raw === undefined || raw === '') return undefined;
  const level = raw.toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  throw new Error(`Invalid ${source}: ${raw} (one of ${LOG_LEVELS.join(', ')})`);
}

/**
 * Never written, whatever a future log call passes: request headers, and fields named like a
 * secret. (Request lines carry only a redacted URL: daemon/http/request-log.ts.) Top-level
 * names only: wildcard paths (`*.password`) cost ~9 µs a line, most of a request line's cost.
 */
const REDACT = ['headers', 'password', 'newpassword', 'token', 'key', 'apiKey', 'authorization', 'cookie'];

/** Request fields that a pretty terminal line already shows in its message. */
const PRETTY_IGNORE = 'pid,hostname,method,url,status,ms,bytes,ip';

export interface DaemonLogOptions {
  dataDir: string;
  level: LogLevel;
  /** Where lines are echoed (stderr), or null for the file only. Pretty when it is a terminal. */
  terminal: (NodeJS.WritableStream & { isTTY?: boolean }) | null;
  /** For tests: rotate at this size instead of 10 MiB. */
  rotateBytes?: number;
}

export interface DaemonLog {
  logger: Logger;
  /** The log folder, `<data-dir>/logs`. */
  dir: string;
  /** The file being written, `<data-dir>/logs/nimbus.log`. */
  file: string;
  /** Writes why the daemon did not start to the file only (the caller tells the terminal itself). */
  startFailed(err: unknown): void;
  /** Closes the file; later lines are dropped. Idempotent. */
  close(): void;
}

const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 50;

/** The flushes of loggers holding unwritten lines: run at exit, so a crash keeps its last lines. */
const unflushed = new Set<() => void>();
let exitHooked = false;
function flushAtExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const flush of unflushed) flush();
  });
}

/**
 * pino's isoTime, formatted once per millisecond: under load many lines share one (formatting
 * a Date was 2 % of the daemon's CPU under GET /api/user; issue 15).
 */
let stampMs = -1;
let stamp = '';
function isoTimeOncePerMs(): string {
  const now = Date.now();
  if (now !== stampMs) {
    stampMs = now;
    stamp = `,"time":"${new Date(now).toISOString()}"`;
  }
  return stamp;
}

/** The sinks of the daemons' own loggers, for the request lines written without pino's generic serialiser. */
const handWrittenSinks = new WeakMap<Logger, { write(line: string): void }>();

/**
 * Where a daemon's logger takes lines built by hand (daemon/http/request-log.ts): pino's
 * generic serialiser was ~10 µs of the ~90 µs a GET cost the daemon (issue 15's profile).
 * Undefined for any other logger (a test's): the caller then goes through pino.
 */
export function handWrittenSink(logger: Logger): { write(line: string): void } | undefined {
  return handWrittenSinks.get(logger);
}

/** The start of a line as pino writes it at `level`: the level's label, the time, the pid. */
export function lineHead(level: LogLevel): string {
  return `{"level":"${level}"${isoTimeOncePerMs()},"pid":${process.pid}`;
}

/** A character JSON.stringify escapes: a quote, a backslash, a control character, or half of a surrogate pair. */
const NEEDS_ESCAPE = /[\x00-\x1f"\\\ud800-\udfff]/;

/** `text` as a JSON string literal, exactly as JSON.stringify writes it; most text escapes nothing and is quoted as it is. */
export const jsonString = (text: string): string => (NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`);

/** Opens (creating, 0700/0600) the log folder and file of a data directory, and a logger on them. */
export function openDaemonLog(options: DaemonLogOptions): DaemonLog {
  const dir = logDirOf(options.dataDir);
  const file = new RotatingFile(path.join(dir, LOG_FILE), options.rotateBytes ?? LOG_ROTATE_BYTES, LOG_KEEP);
  const terminal = options.terminal;
  // Loaded only for a terminal (~40 ms): services, pipes and tests get JSON lines.
  const pretty = terminal?.isTTY
    ? (createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty).prettyFactory({
        colorize: true,
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: PRETTY_IGNORE,
      })
    : null;
  let closed = false;
  // Lines are gathered and written every 50 ms (or 64 KiB): one write(2) for a burst of
  // requests instead of one per line (and one more per line for stderr).
  const pending = new LineBuffer(2 * FLUSH_BYTES);
  let scheduled: NodeJS.Timeout | null = null;
  const writeOut = (bytes: Buffer) => {
    file.write(bytes);
    if (!terminal) return;
    if (!pretty) terminal.write(bytes);
    else for (const line of bytes.toString('utf8').split('\n')) if (line !== '') terminal.write(pretty(line));
  };
  const flush = () => {
    if (scheduled !== null) clearTimeout(scheduled);
    scheduled = null;
    unflushed.delete(flush);
    if (pending.size > 0) writeOut(pending.take());
  };
  const sink = {
    write(line: string) {
      if (closed) return;
      if (!pending.tryAppend(line)) {
        flush();
        // A line longer than the buffer (a long stack) goes out alone.
        if (!pending.tryAppend(line)) return writeOut(Buffer.from(line, 'utf8'));
      }
      if (pending.size >= FLUSH_BYTES) flush();
      else if (scheduled === null) {
        scheduled = setTimeout(flush, FLUSH_MS).unref();
        unflushed.add(flush);
        flushAtExit();
      }
    },
  };
  const settings: pino.LoggerOptions = {
    level: options.level,
    base: { pid: process.pid },
    timestamp: isoTimeOncePerMs,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT, censor: '[redacted]' },
  };
  const logger = pino(settings, sink);
  handWrittenSinks.set(logger, sink);
  return {
    logger,
    dir,
    file: file.path,
    startFailed(err) {
      if (closed) return;
      flush();
      pino(settings, { write: (line: string) => file.write(line) }).error(
        `Nimbus could not start: ${(err as Error)?.message ?? String(err)}`,
      );
    },
    close() {
      if (closed) return;
      flush();
      closed = true;
      file.close();
    },
  };
}
