import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { PASSWORD_RESET_DONE, Session } from '../../renderer/components/Session/Session';
import { ToastProvider } from '../../renderer/components/Toasts/ToastProvider';
import { json, stubFetch } from './harness';

const renderApp = () =>
  render(
    <ToastProvider>
      <Session>
        <p>Signed in</p>
      </Session>
    </ToastProvider>,
  );

let confirmed: Record<string, string>[];
beforeEach(() => {
  confirmed = [];
  stubFetch({
    'GET /api/auth/me': () => json(401, { error: 'Missing or wrong API key', code: 'unauthorized' }),
    'POST /api/auth/reset/confirm': (_url, init) => {
      const body = JSON.parse(String(init.body)) as Record<string, string>;
      confirmed.push(body);
      if (body.token !== 'good-token') return json(400, { error: 'Invalid token', code: 'invalid_token' });
      if (body.newpassword === 'password1')
        return json(400, { error: 'The password is one of the most common passwords', code: 'weak_password' });
      return json(200, { msg: 'Password changed' });
    },
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

async function choose(password: string, again = password) {
  const first = await screen.findByLabelText('New password');
  const second = screen.getByLabelText('New password again');
  await userEvent.clear(first);
  await userEvent.clear(second);
  await userEvent.type(first, password);
  await userEvent.type(second, again);
  await userEvent.click(screen.getByRole('button', { name: 'Set the new password' }));
}

describe('the /reset page', () => {
  it('asks for the new password twice, sets it with the link’s token, then opens sign-in saying so', async () => {
    window.history.replaceState(null, '', '/reset?token=good-token');
    renderApp();
    expect(await screen.findByRole('heading', { name: 'Choose a new password' })).toBeTruthy();
    await choose('correct horse battery', 'correct horse batter');
    expect(screen.getByText('The two passwords differ.')).toBeTruthy();
    expect(confirmed).toEqual([]);
    await choose('short');
    expect(screen.getByText('The password must be at least 8 characters long.')).toBeTruthy();
    await choose('password1');
    expect((await screen.findByRole('alert')).textContent).toBe('The password is one of the most common passwords');
    await choose('correct horse battery');
    expect((await screen.findByRole('status')).textContent).toBe(PASSWORD_RESET_DONE);
    expect(screen.getByLabelText('Username')).toBeTruthy();
    expect(window.location.pathname + window.location.search).toBe('/');
    expect(confirmed.at(-1)).toEqual({ token: 'good-token', newpassword: 'correct horse battery' });
  });

  it('says a used or expired link no longer works', async () => {
    window.history.replaceState(null, '', '/reset?token=old-token');
    renderApp();
    await choose('correct horse battery');
    expect((await screen.findByRole('alert')).textContent).toContain('This link is no longer valid');
  });

  it('says so when the link lost its token, and offers the way back to sign in', async () => {
    window.history.replaceState(null, '', '/reset');
    renderApp();
    expect((await screen.findByRole('alert')).textContent).toContain('This link is incomplete');
    await userEvent.click(screen.getByRole('button', { name: 'Back to sign in' }));
    expect(await screen.findByLabelText('Username')).toBeTruthy();
  });
});
