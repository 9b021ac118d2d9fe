/**
 * Issue 29, item 3: toasts that are not errors leave by themselves, but not while a person is
 * reading them (hovered, or the focus in them); errors stay until dismissed; toasts go where
 * they cover no control (a dialog's place, else the page's strip); the same message is never
 * shown twice (a toast and a panel at once).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ApiError, NimbusClient, errorMessage } from '../../renderer/api/client';
import { toastsLoadError } from '../../renderer/api/loadErrors';
import { KeysSection } from '../../renderer/components/Settings/KeysSection';
import { SessionContext, type SessionApi } from '../../renderer/components/Session/sessionContext';
import { ACTION_MS, SHOW_MS } from '../../renderer/components/Toasts/ToastCard';
import { ToastPlace } from '../../renderer/components/Toasts/ToastPlace';
import { ToastProvider } from '../../renderer/components/Toasts/ToastProvider';
import { RESUME_MS } from '../../renderer/components/Toasts/useDismissTimer';
import { useToast, type ToastApi } from '../../renderer/components/Toasts/toastContext';
import { UploadPanel } from '../../renderer/components/UploadPanel/UploadPanel';
import { UploadsProvider } from '../../renderer/upload/UploadsProvider';
import { useUploadQueue } from '../../renderer/upload/uploadsContext';
import { BASE, KEY, json, renderWithSession, stubFetch } from './harness';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** Renders the provider with `children`, and hands back its API to call from the test. */
function withToasts(children: ReactNode = null): { api: () => ToastApi } {
  let api: ToastApi | null = null;
  function Grab() {
    api = useToast();
    return null;
  }
  render(
    <ToastProvider>
      <Grab />
      {children}
    </ToastProvider>,
  );
  return { api: () => api! };
}

const later = (ms: number) =>
  act(() => {
    vi.advanceTimersByTime(ms);
  });

describe('how long a toast stays', () => {
  it('a success leaves by itself after a few seconds; an error stays until dismissed', () => {
    vi.useFakeTimers();
    const { api } = withToasts();
    act(() => {
      api().success('Copied a.txt');
      api().error('Could not delete “a.txt”', 'File not found');
    });
    later(SHOW_MS.success - 100);
    expect(screen.getByRole('status').textContent).toContain('Copied a.txt');
    later(200);
    expect(screen.queryByRole('status')).toBeNull();
    // Minutes later the error is still there: a person may have been away.
    later(10 * 60_000);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('File not found');
    fireEvent.click(within(alert).getByRole('button', { name: 'Dismiss notification' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('a toast with a button (Undo) stays longer, and a sticky one until dismissed', () => {
    vi.useFakeTimers();
    const { api } = withToasts();
    act(() => {
      api().show({ kind: 'success', title: 'Moved to the trash', action: { label: 'Undo', run: () => {} } });
      api().show({ kind: 'info', title: 'Link copied', sticky: true });
    });
    later(SHOW_MS.success + 100);
    expect(screen.getAllByRole('status')).toHaveLength(2);
    later(ACTION_MS);
    expect(screen.getAllByRole('status').map((toast) => toast.textContent)).toEqual([expect.stringContaining('Link copied')]);
  });

  it('waits while the pointer is over it, and leaves a moment after the pointer does', () => {
    vi.useFakeTimers();
    const { api } = withToasts();
    act(() => void api().success('Saved'));
    later(SHOW_MS.success - 1_000);
    fireEvent.mouseEnter(screen.getByRole('status'));
    later(60_000);
    expect(screen.getByRole('status').textContent).toContain('Saved');
    fireEvent.mouseLeave(screen.getByRole('status'));
    // Not at once: the time left, but never less than RESUME_MS.
    later(RESUME_MS - 100);
    expect(screen.queryByRole('status')).not.toBeNull();
    later(200);
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('waits while the keyboard focus is in it (a keyboard or screen-reader user reading it)', () => {
    vi.useFakeTimers();
    const { api } = withToasts(<button type="button">elsewhere</button>);
    act(() => void api().show({ kind: 'success', title: 'Deleted', action: { label: 'Undo', run: () => {} } }));
    const toast = screen.getByRole('status');
    const undo = within(toast).getByRole('button', { name: 'Undo' });
    const close = within(toast).getByRole('button', { name: 'Dismiss notification' });
    later(ACTION_MS - 1_000);
    act(() => undo.focus());
    later(ACTION_MS * 5);
    // Tab from Undo to the close button: still in the toast, still paused.
    act(() => close.focus());
    later(ACTION_MS * 5);
    expect(screen.getByRole('status').textContent).toContain('Deleted');
    act(() => screen.getByRole('button', { name: 'elsewhere' }).focus());
    later(RESUME_MS + 100);
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('keeps the five newest errors on screen: a success that comes after never pushes one out', () => {
    vi.useFakeTimers();
    const { api } = withToasts();
    act(() => {
      for (let n = 1; n <= 6; n += 1) api().error('Could not save', `attempt ${n}`);
      api().success('Saved');
    });
    expect(screen.getAllByRole('alert').map((toast) => toast.querySelector('.toast__detail')?.textContent)).toEqual(
      [2, 3, 4, 5, 6].map((n) => `attempt ${n}`),
    );
    expect(screen.getByRole('status').textContent).toContain('Saved');
  });

  it('shows a message that comes again once, as the newest', () => {
    vi.useFakeTimers();
    const { api } = withToasts();
    act(() => {
      api().error('Offline', 'x');
      api().error('Other', 'y');
      api().error('Offline', 'x');
    });
    expect(screen.getAllByRole('alert').map((toast) => toast.querySelector('.toast__title')?.textContent)).toEqual(['Other', 'Offline']);
  });
});

describe('where toasts go', () => {
  it('in the page’s strip when there is one, beside an open dialog while one is open, back after', () => {
    vi.useFakeTimers();
    function Page({ dialog }: { dialog: boolean }) {
      return (
        <>
          <main data-testid="main">
            <button type="button">Change password</button>
            <ToastPlace kind="page" className="toast-dock" />
          </main>
          {dialog ? (
            <div role="dialog" aria-label="New user">
              <ToastPlace kind="overlay" className="dialog-toasts" />
            </div>
          ) : null}
        </>
      );
    }
    let api: ToastApi | null = null;
    function Grab() {
      api = useToast();
      return null;
    }
    const view = render(
      <ToastProvider>
        <Grab />
        <Page dialog={false} />
      </ToastProvider>,
    );
    act(() => void api!.error('Could not change the e-mail', 'Address in use'));
    const region = () => screen.getByRole('region', { name: 'Notifications' });
    expect(region().parentElement?.className).toBe('toast-dock');
    expect(region().className).toContain('toasts--docked');
    view.rerender(
      <ToastProvider>
        <Grab />
        <Page dialog />
      </ToastProvider>,
    );
    expect(within(screen.getByRole('dialog')).getByRole('alert').textContent).toContain('Address in use');
    view.rerender(
      <ToastProvider>
        <Grab />
        <Page dialog={false} />
      </ToastProvider>,
    );
    expect(region().parentElement?.className).toBe('toast-dock');
    expect(screen.getByRole('alert').textContent).toContain('Address in use');
  });
});

describe('one message, one place', () => {
  it('says a failed upload in the upload panel only, not again in a toast', async () => {
    const upload = vi.fn(() => Promise.reject(new ApiError(507, 'quota_exceeded', 'Storage quota exceeded')));
    function Add() {
      const queue = useUploadQueue();
      return (
        <button type="button" onClick={() => void queue.add([{ name: 'big.bin', body: new Blob(['x']) }], 'ana', null)}>
          add
        </button>
      );
    }
    renderWithSession(
      <UploadsProvider>
        <Add />
        <UploadPanel />
      </UploadsProvider>,
      { client: { upload } as unknown as NimbusClient },
    );
    fireEvent.click(screen.getByRole('button', { name: 'add' }));
    const panel = await screen.findByRole('region', { name: 'Uploads' });
    await within(panel).findByRole('alert');
    expect(upload).toHaveBeenCalledOnce();
    // The only alert on the page is the panel's row.
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    expect(within(screen.getByRole('region', { name: 'Notifications' })).queryByText(/big\.bin/)).toBeNull();
  });

  it('says a list that could not load where the list is (Settings’ keys), not again in a toast', async () => {
    stubFetch({ 'GET /api/keys': () => json(500, { error: 'Internal error', code: 'internal' }) });
    function Session({ children }: { children: ReactNode }) {
      const toast = useToast();
      // As ReadySession builds it: the toast only for failures their view does not show.
      const [client] = useState(
        () =>
          new QueryClient({
            queryCache: new QueryCache({
              onError: (error, query) => {
                if (toastsLoadError(error, query.meta)) toast.error('Could not load data', errorMessage(error));
              },
            }),
            defaultOptions: { queries: { retry: false } },
          }),
      );
      const session: SessionApi = {
        client: new NimbusClient({ baseUrl: BASE, apiKey: KEY }),
        mode: 'browser',
        auth: 'key',
        me: { user: null, admin: true, canWrite: true },
        bridge: null,
        signOut: () => {},
      };
      return (
        <SessionContext.Provider value={session}>
          <QueryClientProvider client={client}>{children}</QueryClientProvider>
        </SessionContext.Provider>
      );
    }
    render(
      <ToastProvider>
        <Session>
          <KeysSection username="ana" />
        </Session>
      </ToastProvider>,
    );
    const inPlace = await screen.findByRole('alert');
    expect(inPlace.textContent).toContain('Internal error');
    expect(inPlace.closest('.toast')).toBeNull();
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    // Any other failed load still gets its toast; a 401 or an unreachable daemon never does.
    expect(toastsLoadError(new ApiError(500, 'internal', 'x'), undefined)).toBe(true);
    expect(toastsLoadError(new ApiError(401, 'unauthorized', 'x'), undefined)).toBe(false);
  });
});
