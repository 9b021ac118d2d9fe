import { useEffect, useState } from 'react';
import { ApiError, isAbort } from '../../api/client';
import type { NimbusClient } from '../../api/client';
import { SseParser, toChangeEvent } from '../../api/sse';
import { useClient } from '../Session/sessionContext';
import { ActivityLog, BUCKET_MS } from './activityLog';

const REPAINT_MS = 250;
const MAX_BACKOFF_MS = 15_000;

// One log per connection, kept while the page lives: leaving the Overview and coming back
// shows what was heard before (the minutes away are a gap of zeros, not lost history).
const logs = new WeakMap<NimbusClient, ActivityLog>();

function logFor(client: NimbusClient): ActivityLog {
  let log = logs.get(client);
  if (!log) {
    log = new ActivityLog(Date.now());
    logs.set(client, log);
  }
  return log;
}

export interface Activity {
  log: ActivityLog;
  /** Changes whenever the log or the clock moved enough to redraw. */
  now: number;
  listening: boolean;
}

/**
 * Listens to the event stream for the Overview's activity chart. It is a stream of its own
 * beside useLiveEvents' (which only marks queries stale and keeps no events): a second
 * `GET /api/events` for as long as the Overview is open. Index-state events are the daemon's
 * own, not activity, and are left out.
 */
export function useActivity(): Activity {
  const client = useClient();
  const log = logFor(client);
  const [now, setNow] = useState(() => Date.now());
  const [listening, setListening] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    let repaint: number | undefined;
    let retry: number | undefined;
    let backoff = 1_000;
    const redraw = () => {
      repaint = undefined;
      setNow(Date.now());
    };
    // The window slides even when nothing happens.
    const clock = window.setInterval(redraw, BUCKET_MS);

    const listen = async () => {
      try {
        const stream = await client.events(controller.signal);
        setListening(true);
        backoff = 1_000;
        const reader = stream.getReader();
        const decoder = new TextDecoder();
        const parser = new SseParser();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const message of parser.push(decoder.decode(value, { stream: true }))) {
            const event = toChangeEvent(message);
            if (!event || event.type === 'index.state') continue;
            log.add(event, Date.now());
          }
          repaint ??= window.setTimeout(redraw, REPAINT_MS);
        }
      } catch (error) {
        if (controller.signal.aborted || isAbort(error)) return;
        // A daemon without the stream: nothing to listen to.
        if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return;
      }
      if (controller.signal.aborted) return;
      setListening(false);
      retry = window.setTimeout(() => void listen(), backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    };

    void listen();
    return () => {
      controller.abort();
      window.clearInterval(clock);
      window.clearTimeout(repaint);
      window.clearTimeout(retry);
    };
  }, [client, log]);

  return { log, now, listening };
}
