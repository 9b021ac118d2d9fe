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
const requestLineSinks = new WeakMap<Logger, { write(line: string): void }>();

/** A request line's fields: flat, undefined ones left out (as pino does). */
export type LineFields = Record<string, string | number | boolean | undefined>;

/** A character JSON.stringify escapes: a quote, a backslash, a control character, or half of a surrogate pair. */
const NEEDS_ESCAPE = /[\x00-\x1f"\\\ud800-\udfff]/;

/** `text` as a JSON string literal, exactly as JSON.stringify writes it; most text escapes nothing and is quoted as it is. */
export const jsonString = (text: string): string => (NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`);

/**
 * Writes the line `logger[level](fields, msg)` writes — the same JSON, key for key (level
 * label, time, pid, the fields, msg) — built by hand: pino's generic serialiser was ~10 µs of
 * the ~90 µs a GET costs the daemon (issue 15's profile), a request line one string here, its
 * values quoted one by one (0.86 µs a request line with its share of the writes, against
 * 1.19 µs with one JSON.stringify of the fields and one of the message; bench/NOTES.md,
 * issue 30). The field names are the caller's own, plain words that need no escaping. The
 * caller has checked the level. Any other logger (a test's) goes through pino.
 */
export function writeLine(logger: Logger, level: 'debug' | 'info' | 'error', fields: LineFields, msg: string): void {
  const sink = requestLineSinks.get(logger);
  if (!sink) {
    logger[level](fields, msg);
    return;
  }
  let line = `{"level":"${level}"${isoTimeOncePerMs()},"pid":${process.pid}`;
  for (const name in fields) {
    const value = fields[name];
    // Left out when undefined, as pino does; a number that JSON cannot hold is null, as in JSON.stringify.
    if (value === undefined) continue;
    const json = typeof value === 'string' ? jsonString(value) : typeof value === 'number' && !Number.isFinite(value) ? 'null' : value;
    line += `,"${name}":${json}`;
  }
  sink.write(`${line},"msg":${jsonString(msg)}}\n`);
}

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
  let pending = '';
  let scheduled: NodeJS.Timeout | null = null;
  const flush = () => {
    if (scheduled !== null) clearTimeout(scheduled);
    scheduled = null;
    unflushed.delete(flush);
    if (pending === '') return;
    const chunk = pending;
    pending = '';
    if (!terminal) {
      file.write(chunk);
      return;
    }
    if (pretty) {
      file.write(chunk);
      for (const line of chunk.split('\n')) if (line !== '') terminal.write(pretty(line));
      return;
    }
    // Encoded once for the file and the echo (each write of the string encoded it again).
    const bytes = Buffer.from(chunk, 'utf8');
    file.write(bytes);
    terminal.write(bytes);
  };
  const sink = {
    write(line: string) {
      if (closed) return;
      pending += line;
      if (pending.length >= FLUSH_BYTES) flush();
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
  requestLineSinks.set(logger, sink);
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
