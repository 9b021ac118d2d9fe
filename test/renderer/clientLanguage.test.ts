/**
 * The explorer tells the daemon its language (issue 29, item 4): every API call carries
 * `Accept-Language: <the UI's language>`, the one picked in Settings rather than the browser's,
 * so a mail the call causes (a reset, a verification) is written in it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chooseLanguage } from '../../renderer/i18n';
import { NimbusClient } from '../../renderer/api/client';

afterEach(async () => {
  vi.unstubAllGlobals();
  await chooseLanguage('en');
  localStorage.clear();
});

/** The headers of the one fetch `call` makes. */
async function headersOf(call: (client: NimbusClient) => Promise<unknown>, apiKey: string | null): Promise<Record<string, string>> {
  const fetch = vi.fn(async () => new Response('{}', { status: 200, headers: { 'Content-Type': 'application/json' } }));
  vi.stubGlobal('fetch', fetch);
  await call(new NimbusClient({ baseUrl: 'http://127.0.0.1:7878', apiKey }));
  const init = (fetch.mock.calls[0] as unknown[])[1] as RequestInit;
  return init.headers as Record<string, string>;
}

describe('the API client’s language', () => {
  it('sends the language chosen in the UI, with or without a key', async () => {
    await chooseLanguage('cs');
    const reset = await headersOf((c) => c.call('auth.reset', { username: 'ana' }), null);
    expect(reset['Accept-Language']).toBe('cs');
    await chooseLanguage('ja');
    const withKey = await headersOf((c) => c.call('auth.options'), 'k-123');
    expect(withKey).toMatchObject({ 'Accept-Language': 'ja', 'API-Key': 'k-123' });
  });
});
