/** Renders components inside the providers the app gives them, against a scripted fetch. */
import type { ReactNode } from 'react';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, type RenderResult } from '@testing-library/react';
import { vi } from 'vitest';
// The UI's strings, in English for every renderer test (jsdom's navigator says en-US).
import '../../renderer/i18n';
import { ApiError, NimbusClient, errorMessage } from '../../renderer/api/client';
import { SessionContext, type SessionApi } from '../../renderer/components/Session/sessionContext';
import { ToastProvider } from '../../renderer/components/Toasts/ToastProvider';
import { useToast } from '../../renderer/components/Toasts/toastContext';
import type { ShareInfo } from '../../shared/types';

export const BASE = 'http://127.0.0.1:7878';
export const KEY = 'test-key-0123456789';

/** A share link as the daemon lists it: ana's active file link to Docs/report.pdf, no limits, with `over` changed. */
export const shareInfo = (over: Partial<ShareInfo> = {}): ShareInfo =>
  ({
    url: `${BASE}/s/report-token-0123456789abcdef`,
    kind: 'file',
    username: 'ana',
    folder: 'Docs',
    file: 'report.pdf',
    createdAt: '2026-01-02T00:00:00.000Z',
    expiresAt: null,
    hasPassword: false,
    maxDownloads: null,
    downloads: 0,
    state: 'active',
    ...over,
  }) as ShareInfo;

export type Route = (url: URL, init: RequestInit) => Response | Promise<Response>;

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

/** Replaces global fetch with a table of `METHOD /path` → handler; anything else is a 404 like the daemon's. */
export function stubFetch(routes: Record<string, Route>) {
  const calls: { method: string; url: URL; headers: Headers }[] = [];
  const fake = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const method = (init.method ?? 'GET').toUpperCase();
    calls.push({ method, url, headers: new Headers(init.headers) });
    const handler = routes[`${method} ${url.pathname}`];
    if (!handler) return json(404, { error: 'Route not found', code: 'route_not_found' });
    return handler(url, init);
  });
  vi.stubGlobal('fetch', fake);
  return { fake, calls };
}

function QueryLayer({ children }: { children: ReactNode }) {
  const toast = useToast();
  const client = new QueryClient({
    queryCache: new QueryCache({ onError: (error) => toast.error('Could not load data', errorMessage(error)) }),
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

/** Renders with toasts, a session on BASE/KEY and a fresh query cache. */
export function renderWithSession(ui: ReactNode, session: Partial<SessionApi> = {}): RenderResult {
  const value: SessionApi = {
    client: new NimbusClient({ baseUrl: BASE, apiKey: KEY }),
    mode: 'browser',
    auth: 'key',
    me: { user: null, admin: true, canWrite: true },
    bridge: null,
    signOut: () => {},
    ...session,
  };
  return render(
    <ToastProvider>
      <SessionContext.Provider value={value}>
        <QueryLayer>{ui}</QueryLayer>
      </SessionContext.Provider>
    </ToastProvider>,
  );
}

export { ApiError };

/** jsdom lays nothing out; give elements a viewport so the virtualiser renders rows. */
export function fakeLayout(width = 900, height = 600): () => void {
  const proto = HTMLElement.prototype;
  const saved = {
    clientHeight: Object.getOwnPropertyDescriptor(proto, 'clientHeight'),
    clientWidth: Object.getOwnPropertyDescriptor(proto, 'clientWidth'),
  };
  Object.defineProperty(proto, 'clientHeight', { configurable: true, get: () => height });
  Object.defineProperty(proto, 'clientWidth', { configurable: true, get: () => width });
  return () => {
    if (saved.clientHeight) Object.defineProperty(proto, 'clientHeight', saved.clientHeight);
    if (saved.clientWidth) Object.defineProperty(proto, 'clientWidth', saved.clientWidth);
  };
}
