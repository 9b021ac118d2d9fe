/** Reads GET /api/events in the background, as a browser's EventSource would. */

export interface EventMessage {
  event: string;
  data: { type: string; username: string | null; folder: string | null; file: string | null; from?: string };
}

export interface EventStream {
  /** The response status (401 when the key is refused: then nothing is read). */
  status: number;
  headers: Headers;
  /** Every message with an `event:` and a `data:` line, in order. */
  messages: EventMessage[];
  /** The raw text received so far (comments such as `: connected` included). */
  text(): string;
  /** Whether the daemon ended the stream (or closed its connection). */
  ended(): boolean;
  /** Aborts the stream and resolves once reading stopped. */
  close(): Promise<void>;
}

/** Opens the event stream of the daemon at `url` with these headers and collects what arrives. */
export async function openEventStream(url: string, headers: Record<string, string>): Promise<EventStream> {
  const controller = new AbortController();
  const res = await fetch(`${url}/api/events`, { headers, signal: controller.signal });
  const messages: EventMessage[] = [];
  let text = '';
  let ended = false;
  const reading = (async () => {
    if (!res.ok) return;
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const lines = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
          if (event && data) messages.push({ event, data: JSON.parse(data) as EventMessage['data'] });
        }
      }
    } catch {
      // aborted by the test, or a connection the daemon closed: ended all the same
    }
    ended = true;
  })();
  return {
    status: res.status,
    headers: res.headers,
    messages,
    text: () => text,
    ended: () => ended,
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}
