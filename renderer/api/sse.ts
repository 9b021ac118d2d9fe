import { CHANGE_EVENT_TYPES, type ChangeEvent, type ChangeEventType } from '../../shared/types';

export interface SseMessage {
  event: string;
  data: string;
}

/** Incremental text/event-stream parser (the WHATWG rules that matter here). */
export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];

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
  return {
    type: type as ChangeEventType,
    username: stringOrNull(record.username),
    folder: stringOrNull(record.folder),
    file: stringOrNull(record.file),
  };
}
