import { useEffect, useState } from 'react';
import type { NimbusClient } from '../../api/client';
import { followEvents } from '../../api/sse';
import { useClient } from '../Session/sessionContext';
import { ActivityLog, BUCKET_MS } from './activityLog';

const REPAINT_MS = 250;

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
    const redraw = () => {
      repaint = undefined;
      setNow(Date.now());
    };
    // The window slides even when nothing happens.
    const clock = window.setInterval(redraw, BUCKET_MS);

    followEvents(client, controller.signal, {
      open: () => setListening(true),
      // Index-state events are the daemon's own, not activity.
      event: (event) => {
        if (event.type !== 'index.state') log.add(event, Date.now());
      },
      chunk: () => {
        repaint ??= window.setTimeout(redraw, REPAINT_MS);
      },
      // A daemon without the stream: nothing to listen to.
      down: (unsupported) => {
        if (!unsupported) setListening(false);
      },
    });
    return () => {
      controller.abort();
      window.clearInterval(clock);
      window.clearTimeout(repaint);
    };
  }, [client, log]);

  return { log, now, listening };
}
