/**
 * The text of GET /api/events (daemon/http/events.ts): what a stream starts with, each
 * event's message, and the bytes each message is written as.
 */
import type { ChangeEvent } from '../../shared/types.js';
import { RESET, type ChangeFeed } from '../storage/change-feed.js';

export const CONNECTED = ': connected\n\nretry: 2000\n\n';
export const KEEP_ALIVE = ': keep-alive\n\n';
const RESET_MESSAGE = `event: ${RESET}\ndata: ${JSON.stringify({ type: RESET })}\n\n`;

/** One event as a message: its id first, so the id holds for the event it comes with. */
export const messageText = (id: string, event: ChangeEvent): string =>
  `id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * What a stream starts with, after CONNECTED: where the feed stands (a new client), what the
 * client missed since `lastEventId` that it may see, or a `reset` when the feed no longer has
 * all of it. Every way ends with the feed's current id, so the next reconnect resumes from here.
 */
export function catchUpText(changes: ChangeFeed, lastEventId: string, mayReceive: (event: ChangeEvent) => boolean): string {
  const position = `id: ${changes.position}\n`;
  if (lastEventId === '') return `${position}\n`;
  const missed = changes.since(lastEventId);
  if (missed === RESET) return `${position}${RESET_MESSAGE}`;
  let text = '';
  for (const { seq, event } of missed) if (mayReceive(event)) text += messageText(changes.idOf(seq), event);
  return `${text}${position}\n`;
}

/** One message's bytes, encoded once for every stream: bare, and as one chunk of a chunked body. */
export class Message {
  readonly text: string;
  #bare: Buffer | null = null;
  #chunk: Buffer | null = null;

  constructor(text: string) {
    this.text = text;
  }

  bytes(chunked: boolean): Buffer {
    this.#bare ??= Buffer.from(this.text);
    if (!chunked) return this.#bare;
    return (this.#chunk ??= Buffer.concat([Buffer.from(`${this.#bare.length.toString(16)}\r\n`), this.#bare, Buffer.from('\r\n')]));
  }
}
