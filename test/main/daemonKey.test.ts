import { describe, expect, it, vi } from 'vitest';
import { setupDaemonKey, withDaemonKey } from '../../main/daemonKey.js';

const ORIGIN = 'http://127.0.0.1:7878';
const KEY = 'admin-key-0123456789';

describe('withDaemonKey', () => {
  it.each([
    `${ORIGIN}/api/files/download?username=ana&file=a.pdf`,
    `${ORIGIN}/api/folders/download?username=ana&folder=photos`,
    `${ORIGIN}/api/files/thumbnail?username=ana&file=cat.png`,
    `${ORIGIN}/`,
  ])('adds the key to a plain request to the daemon: %s', (url) => {
    expect(withDaemonKey(url, { Accept: '*/*' }, ORIGIN, KEY)).toEqual({ Accept: '*/*', 'API-Key': KEY });
  });

  it.each([
    ['another port', 'http://127.0.0.1:7879/api/files/download'],
    ['another host name for the same machine', 'http://localhost:7878/api/files/download'],
    ['https on the same host and port', 'https://127.0.0.1:7878/api/files/download'],
    ['a host that starts like it', 'http://127.0.0.1.evil.example:7878/api'],
    ['credentials smuggled before the host', 'http://127.0.0.1:7878@evil.example/api'],
    ['the web', 'https://example.com/badge.png'],
    ['a websocket to the same port', 'ws://127.0.0.1:7878/api/events'],
    ['not a URL', 'not a url'],
  ])('never sends the key to %s', (_what, url) => {
    expect(withDaemonKey(url, { Accept: '*/*' }, ORIGIN, KEY)).toEqual({ Accept: '*/*' });
  });

  it('keeps a credential the request names itself, whatever its case', () => {
    expect(withDaemonKey(`${ORIGIN}/api/user`, { 'api-key': 'personal' }, ORIGIN, KEY)).toEqual({ 'api-key': 'personal' });
    expect(withDaemonKey(`${ORIGIN}/api/user`, { Authorization: 'Bearer x' }, ORIGIN, KEY)).toEqual({ Authorization: 'Bearer x' });
  });
});

describe('setupDaemonKey', () => {
  it('listens to the daemon’s origin only, and reads the key at each request (a rotated key is used)', () => {
    const onBeforeSendHeaders = vi.fn();
    let key = 'first-key';
    setupDaemonKey({ webRequest: { onBeforeSendHeaders } } as never, `${ORIGIN}/`, () => key);
    const [filter, listener] = onBeforeSendHeaders.mock.calls[0];
    expect(filter).toEqual({ urls: [`${ORIGIN}/*`] });

    const callback = vi.fn();
    listener({ url: `${ORIGIN}/api/folders/download?username=ana`, requestHeaders: {} }, callback);
    key = 'rotated-key';
    listener({ url: `${ORIGIN}/api/files/download?username=ana&file=a`, requestHeaders: {} }, callback);
    listener({ url: 'https://example.com/', requestHeaders: {} }, callback);
    expect(callback.mock.calls).toEqual([
      [{ requestHeaders: { 'API-Key': 'first-key' } }],
      [{ requestHeaders: { 'API-Key': 'rotated-key' } }],
      [{ requestHeaders: {} }],
    ]);
  });
});
