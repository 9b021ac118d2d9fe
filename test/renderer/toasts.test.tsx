import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ApiError, NimbusClient, UNREACHABLE } from '../../renderer/api/client';
import { ToastProvider } from '../../renderer/components/Toasts/ToastProvider';
import { useToast } from '../../renderer/components/Toasts/toastContext';
import { useApiAction } from '../../renderer/hooks/useApiAction';
import { useUsers } from '../../renderer/hooks/queries';
import { BASE, KEY, json, renderWithSession, stubFetch } from './harness';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function ActionButton({ action }: { action: () => Promise<unknown> }) {
  const run = useApiAction();
  return (
    <button type="button" onClick={() => void run('Could not delete “a.txt”', action)}>
      Go
    </button>
  );
}

describe('error toasts', () => {
  it('shows the daemon’s error message when an action fails', async () => {
    renderWithSession(<ActionButton action={() => Promise.reject(new ApiError(404, 'file_not_found', 'File not found'))} />);
    await userEvent.click(screen.getByRole('button', { name: 'Go' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not delete “a.txt”');
    expect(alert.textContent).toContain('File not found');
  });

  it('turns a failed HTTP call into the body’s `error`, with its status and code', async () => {
    stubFetch({ 'POST /api/files/delete': () => json(409, { error: 'Role is still assigned to 2 users', code: 'role_in_use' }) });
    const client = new NimbusClient({ baseUrl: BASE, apiKey: KEY });
    const error = await client.call('files.delete', { username: 'ana', file: 'a' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'role_in_use', message: 'Role is still assigned to 2 users' });
  });

  it('says the daemon cannot be reached when the network fails, and sends the key header', async () => {
    const fake = vi.fn(async () => {
      throw new TypeError('Failed to fetch');
    });
    vi.stubGlobal('fetch', fake);
    const client = new NimbusClient({ baseUrl: BASE, apiKey: KEY });
    await expect(client.call('user.all')).rejects.toMatchObject({ status: 0, message: UNREACHABLE });
    const init = fake.mock.calls[0] as unknown as [string, RequestInit];
    expect(new Headers(init[1].headers).get('API-Key')).toBe(KEY);
  });

  it('shows a toast when loading data fails', async () => {
    stubFetch({ 'GET /api/user/all': () => json(500, { error: 'Internal error', code: 'internal' }) });
    function Users() {
      const users = useUsers();
      return <p>{users.isError ? 'failed' : 'loading'}</p>;
    }
    renderWithSession(<Users />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not load data');
    expect(alert.textContent).toContain('Internal error');
  });

  it('can be dismissed, and disappears by itself after a while', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    function Trigger() {
      const toast = useToast();
      return (
        <>
          <button type="button" onClick={() => toast.error('First', 'one')}>
            one
          </button>
          <button type="button" onClick={() => toast.success('Second')}>
            two
          </button>
        </>
      );
    }
    render(
      <ToastProvider>
        <Trigger />
      </ToastProvider>,
    );
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.click(screen.getByRole('button', { name: 'one' }));
    await user.click(screen.getByRole('button', { name: 'two' }));
    expect(screen.getByRole('alert').textContent).toContain('First');
    await user.click(screen.getAllByRole('button', { name: 'Dismiss notification' })[0]);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('status').textContent).toContain('Second');
    vi.advanceTimersByTime(6_000);
    await waitFor(() => expect(screen.queryByRole('status')).toBeNull());
  });

  it('shows the same message only once when it repeats', async () => {
    function Twice() {
      const toast = useToast();
      return (
        <button
          type="button"
          onClick={() => {
            toast.error('Offline', 'x');
            toast.error('Offline', 'x');
          }}
        >
          twice
        </button>
      );
    }
    render(
      <ToastProvider>
        <Twice />
      </ToastProvider>,
    );
    await userEvent.click(screen.getByRole('button', { name: 'twice' }));
    expect(screen.getAllByRole('alert')).toHaveLength(1);
  });
});

describe('a toast with an action', () => {
  it('shows one button ("Undo"), runs it once when pressed and closes', async () => {
    const undo = vi.fn();
    function Deleted() {
      const toast = useToast();
      return (
        <button
          type="button"
          onClick={() => toast.show({ kind: 'success', title: 'Moved a.txt to the trash', action: { label: 'Undo', run: undo } })}
        >
          delete
        </button>
      );
    }
    render(
      <ToastProvider>
        <Deleted />
      </ToastProvider>,
    );
    await userEvent.click(screen.getByRole('button', { name: 'delete' }));
    const status = await screen.findByRole('status');
    expect(status.textContent).toContain('Moved a.txt to the trash');
    await userEvent.click(within(status).getByRole('button', { name: 'Undo' }));
    expect(undo).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('status')).toBeNull();
  });
});
