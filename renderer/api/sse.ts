import { CHANGE_EVENT_TYPES, type ChangeEvent, type ChangeEventType } from '../../shared/types';
import { ApiError, isAbort, type NimbusClient } from './client';

export interface SseMessage {
  event: string;
  data: string;
}

/** Incremental text/event-stream parser (the WHATWG rules that matter here). */
export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  #idBuffer: string | null = null;
  #lastEventId: string | null = null;

  /**
   * The id of the last message completed (WHATWG: an id holds until the next one, and a block
   * with an id but no data sets it too): what a reconnect sends as `Last-Event-ID`.
   */
  get lastEventId(): string | null {
    return this.#lastEventId;
  }

  /** Feeds decoded text; returns the messages completed by it. */
  push(chunk: string): SseMessage[] {
    this.#buffer += chunk;
    const out: SseMessage[] = [];
    let newline: RegExpExecArray | null;
    const lineEnd = /\r\n|\r|\n/g;
    let start = 0;
    while ((newline = lineEnd.exec(this.#buffer)) !== null) {
      // A lone \r at the very end may be the first half of \r\n: wait for more text.
      if (newline[0] === '\r' && newline.index === this.#buffer.length - 1) break;
      this.#line(this.#buffer.slice(start, newline.index), out);
      start = newline.index + newline[0].length;
    }
    this.#buffer = this.#buffer.slice(start);
    return out;
  }

  #line(line: string, out: SseMessage[]): void {
    if (line === '') {
      this.#lastEventId = this.#idBuffer;
      if (this.#data.length > 0) out.push({ event: this.#event || 'message', data: this.#data.join('\n') });
      this.#event = '';
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.#idBuffer = value;
  }
}

const EVENT_TYPES: ReadonlySet<string> = new Set<ChangeEventType>(CHANGE_EVENT_TYPES);

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A change event from one SSE message, or null for anything else (pings, unknown types). */
export function toChangeEvent(message: SseMessage): ChangeEvent | null {
  let body: unknown;
  try {
    body = JSON.parse(message.data);
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const record = body as Record<string, unknown>;
  const type = typeof record.type === 'string' ? record.type : message.event;
  if (!EVENT_TYPES.has(type)) return null;
  const event: ChangeEvent = {
    type: type as ChangeEventType,
    username: stringOrNull(record.username),
    folder: stringOrNull(record.folder),
    file: stringOrNull(record.file),
  };
  if (typeof record.from === 'string') event.from = record.from;
  return event;
}

const MAX_BACKOFF_MS = 15_000;
/** The daemon's message for "what you missed is no longer kept": refetch everything. */
const RESET_EVENT = 'reset';

/** What a follower of the event stream hears (followEvents). */
export interface EventStreamHandlers {
  /** A connection is being tried. */
  connecting?(): void;
  /** The stream is open; `again` after a reconnect. */
  open(again: boolean): void;
  event(event: ChangeEvent): void;
  /**
   * What came while disconnected cannot be sent: the daemon said `reset` (another daemon or
   * boot, or too long ago), or there was no id to resume from. Everything must be fetched again.
   */
  missed?(): void;
  /** After the events of one chunk of the stream. */
  chunk?(): void;
  /** The stream is down: `unsupported` when the daemon has none (no retry), else it retries. */
  down(unsupported: boolean): void;
}

/**
 * Follows GET /api/events until `signal` aborts, reconnecting with backoff (1 s, doubling to
 * 15 s) and with the id of the last message it had, so that the daemon sends what it missed.
 * The one loop behind every listener of the stream.
 */
export function followEvents(client: NimbusClient, signal: AbortSignal, on: EventStreamHandlers): void {
  let backoff = 1_000;
  let opened = false;
  let retry: number | undefined;
  let lastEventId: string | null = null;
  signal.addEventListener('abort', () => window.clearTimeout(retry));

  const connect = async () => {
    on.connecting?.();
    try {
      const stream = await client.events(signal, lastEventId);
      on.open(opened);
      if (opened && lastEventId === null) on.missed?.();
      opened = true;
      backoff = 1_000;
      const reader = stream.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const message of parser.push(decoder.decode(value, { stream: true }))) {
          if (message.event === RESET_EVENT) on.missed?.();
          const event = toChangeEvent(message);
          if (event) on.event(event);
        }
        lastEventId = parser.lastEventId ?? lastEventId;
        on.chunk?.();
      }
    } catch (error) {
      if (signal.aborted || isAbort(error)) return;
      if (error instanceof ApiError && (error.status === 404 || error.status === 405)) {
        on.down(true);
        return;
      }
    }
    if (signal.aborted) return;
    on.down(false);
    retry = window.setTimeout(() => void connect(), backoff);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  };
  void connect();
}
