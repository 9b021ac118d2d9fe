import { describe, expect, it, vi } from 'vitest';
import { FALLBACK_CSP, isPermissionAllowed, setupSessionSecurity, withFallbackCsp } from '../../main/security.js';

const ORIGIN = 'http://127.0.0.1:7878';

describe('withFallbackCsp', () => {
  it('adds a CSP to a response that has none', () => {
    expect(withFallbackCsp({ 'Content-Type': ['text/html'] })).toEqual({
      'Content-Type': ['text/html'],
      'Content-Security-Policy': [FALLBACK_CSP],
    });
  });

  it('keeps the daemon’s own CSP, whatever the header’s case', () => {
    const headers = { 'content-security-policy': ["default-src 'none'; sandbox"] };
    expect(withFallbackCsp(headers)).toEqual(headers);
  });

  it('handles a response without headers', () => {
    expect(withFallbackCsp(undefined)).toEqual({ 'Content-Security-Policy': [FALLBACK_CSP] });
  });

  it('runs only the app’s own scripts and blocks plugins, framing and base changes', () => {
    expect(FALLBACK_CSP).toContain("script-src 'self'");
    expect(FALLBACK_CSP).not.toMatch(/script-src[^;]*unsafe-(inline|eval)/);
    expect(FALLBACK_CSP).toContain("object-src 'none'");
    expect(FALLBACK_CSP).toContain("frame-ancestors 'none'");
    expect(FALLBACK_CSP).toContain("base-uri 'none'");
  });
});

describe('permissions', () => {
  it('lets the Nimbus page write to the clipboard (copy share link)', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write', `${ORIGIN}/`, ORIGIN)).toBe(true);
  });

  it.each(['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fileSystem', 'hid', 'serial', 'usb'])(
    'denies %s',
    (permission) => {
      expect(isPermissionAllowed(permission, `${ORIGIN}/`, ORIGIN)).toBe(false);
    },
  );

  it('denies even the clipboard to any other origin', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://example.com/', ORIGIN)).toBe(false);
  });
});

describe('setupSessionSecurity', () => {
  function fakeSession() {
    return {
      webRequest: { onHeadersReceived: vi.fn() },
      setPermissionRequestHandler: vi.fn(),
      setPermissionCheckHandler: vi.fn(),
    };
  }

  it('filters only the daemon’s responses and adds the fallback CSP', () => {
    const session = fakeSession();
    setupSessionSecurity(session as never, `${ORIGIN}/`);
    const [filter, listener] = session.webRequest.onHeadersReceived.mock.calls[0];
    expect(filter).toEqual({ urls: [`${ORIGIN}/*`] });
    const callback = vi.fn();
    listener({ responseHeaders: {} }, callback);
    expect(callback).toHaveBeenCalledWith({ responseHeaders: { 'Content-Security-Policy': [FALLBACK_CSP] } });
  });

  it('answers permission requests and checks with the policy', () => {
    const session = fakeSession();
    setupSessionSecurity(session as never, ORIGIN);
    const request = session.setPermissionRequestHandler.mock.calls[0][0];
    const answers: boolean[] = [];
    const contents = { getURL: () => `${ORIGIN}/` };
    request(contents, 'media', (ok: boolean) => answers.push(ok), { requestingUrl: `${ORIGIN}/` });
    request(contents, 'clipboard-sanitized-write', (ok: boolean) => answers.push(ok), { requestingUrl: `${ORIGIN}/` });
    expect(answers).toEqual([false, true]);
    const check = session.setPermissionCheckHandler.mock.calls[0][0];
    expect(check(null, 'notifications', ORIGIN)).toBe(false);
    expect(check(null, 'clipboard-sanitized-write', ORIGIN)).toBe(true);
  });
});
