import { useEffect, useState } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { keysForEvent } from '../api/queryKeys';
import { followEvents } from '../api/sse';
import { useClient } from '../components/Session/sessionContext';

export type LiveState = 'connecting' | 'live' | 'offline' | 'unsupported';

const FLUSH_MS = 120;

/**
 * Follows GET /api/events and marks the affected queries stale. Bursts (a folder of
 * files copied in) are merged into one invalidation per key. Reconnects with backoff.
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
      open(again) {
        setState('live');
        // Anything missed while disconnected is fetched again.
        if (again) void queryClient.invalidateQueries();
      },
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
