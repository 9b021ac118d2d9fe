import { useEffect, useState } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { ApiError, isAbort } from '../api/client';
import { keysForEvent } from '../api/queryKeys';
import { SseParser, toChangeEvent } from '../api/sse';
import { useClient } from '../components/Session/sessionContext';

export type LiveState = 'connecting' | 'live' | 'offline' | 'unsupported';

const FLUSH_MS = 120;
const MAX_BACKOFF_MS = 15_000;

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
    let retryTimer: number | undefined;
    let backoff = 1_000;
    let reconnecting = false;

    const flush = () => {
      flushTimer = undefined;
      const keys = [...pending.values()];
      pending.clear();
      for (const queryKey of keys) void queryClient.invalidateQueries({ queryKey });
    };

    const connect = async () => {
      setState('connecting');
      try {
        const stream = await client.events(controller.signal);
        setState('live');
        backoff = 1_000;
        // Anything missed while disconnected is fetched again.
        if (reconnecting) void queryClient.invalidateQueries();
        reconnecting = true;
        const reader = stream.getReader();
        const decoder = new TextDecoder();
        const parser = new SseParser();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const message of parser.push(decoder.decode(value, { stream: true }))) {
            const event = toChangeEvent(message);
            if (!event) continue;
            for (const key of keysForEvent(event)) pending.set(JSON.stringify(key), key);
          }
          if (pending.size > 0 && flushTimer === undefined) flushTimer = window.setTimeout(flush, FLUSH_MS);
        }
      } catch (error) {
        if (controller.signal.aborted || isAbort(error)) return;
        if (error instanceof ApiError && (error.status === 404 || error.status === 405)) {
          setState('unsupported');
          return;
        }
      }
      if (controller.signal.aborted) return;
      setState('offline');
      retryTimer = window.setTimeout(() => void connect(), backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    };

    void connect();
    return () => {
      controller.abort();
      window.clearTimeout(flushTimer);
      window.clearTimeout(retryTimer);
    };
  }, [client, queryClient]);

  return state;
}
