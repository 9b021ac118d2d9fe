import { useEffect, useState } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { keysForEvent } from '../api/queryKeys';
import { followEvents } from '../api/sse';
import { useClient } from '../components/Session/sessionContext';

export type LiveState = 'connecting' | 'live' | 'offline' | 'unsupported';

const FLUSH_MS = 120;

/**
 * Follows GET /api/events and marks the affected queries stale. Bursts (a folder of
 * files copied in) are merged into one invalidation per key. Reconnects with backoff,
 * resuming where it stopped: only when the daemon cannot say what was missed is
 * everything fetched again.
 */
export function useLiveEvents(): LiveState {
  const client = useClient();
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState>('connecting');

  useEffect(() => {
    const controller = new AbortController();
    const pending = new Map<string, QueryKey>();
    let flushTimer: number | undefined;

    const flush = () => {
      flushTimer = undefined;
      const keys = [...pending.values()];
      pending.clear();
      for (const queryKey of keys) void queryClient.invalidateQueries({ queryKey });
    };

    followEvents(client, controller.signal, {
      connecting: () => setState('connecting'),
      open: () => setState('live'),
      // The daemon could not replay what came while disconnected: fetch everything again.
      missed: () => void queryClient.invalidateQueries(),
      event(event) {
        for (const key of keysForEvent(event)) pending.set(JSON.stringify(key), key);
      },
      chunk() {
        if (pending.size > 0 && flushTimer === undefined) flushTimer = window.setTimeout(flush, FLUSH_MS);
      },
      down: (unsupported) => setState(unsupported ? 'unsupported' : 'offline'),
    });
    return () => {
      controller.abort();
      window.clearTimeout(flushTimer);
    };
  }, [client, queryClient]);

  return state;
}
