import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { guardWebContents, handleWindowOpen, isSameOrigin, isWebUrl, originOf } from '../../main/navigation.js';

const ORIGIN = 'http://127.0.0.1:7878';

class Contents extends EventEmitter {
  openHandler: ((details: { url: string }) => { action: string }) | null = null;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
    this.openHandler = handler;
  }
  /** Emits a navigation event and says whether it was prevented. */
  navigate(event: string, url: string, extra: Record<string, unknown> = {}): boolean {
    let prevented = false;
    this.emit(event, { url, ...extra, preventDefault: () => (prevented = true) });
    return prevented;
  }
}

function guarded() {
  const contents = new Contents();
  const openExternal = vi.fn(async (_url: string) => undefined);
  guardWebContents(contents as never, ORIGIN, openExternal);
  return { contents, openExternal };
}

describe('URL helpers', () => {
  it('compares origins, port included', () => {
    expect(isSameOrigin('http://127.0.0.1:7878/users/ana', ORIGIN)).toBe(true);
    expect(isSameOrigin('http://127.0.0.1:7879/', ORIGIN)).toBe(false);
    expect(isSameOrigin('http://localhost:7878/', ORIGIN)).toBe(false);
    expect(isSameOrigin('https://127.0.0.1:7878/', ORIGIN)).toBe(false);
    expect(isSameOrigin('not a url', ORIGIN)).toBe(false);
  });

  it('has no origin for opaque URLs', () => {
    expect(originOf('file:///etc/passwd')).toBeNull();
    expect(originOf('data:text/html,hi')).toBeNull();
    expect(originOf('javascript:alert(1)')).toBeNull();
  });

  it('treats only http and https as web URLs', () => {
    expect(isWebUrl('https://example.com/')).toBe(true);
    expect(isWebUrl('http://example.com/')).toBe(true);
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'mailto:a@b.c', 'ms-settings:', '']) {
      expect(isWebUrl(url), url).toBe(false);
    }
  });
});

describe('guardWebContents', () => {
  it('lets the page navigate within the daemon origin', () => {
    const { contents, openExternal } = guarded();
    expect(contents.navigate('will-navigate', `${ORIGIN}/roles`)).toBe(false);
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('prevents navigation to another site and opens it in the browser instead', () => {
    const { contents, openExternal } = guarded();
    expect(contents.navigate('will-navigate', 'https://example.com/docs')).toBe(true);
    expect(openExternal).toHaveBeenCalledWith('https://example.com/docs');
  });

  it('prevents navigation to file:, javascript: and other schemes without opening them', () => {
    const { contents, openExternal } = guarded();
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://evil/share', 'data:text/html,<b>x</b>']) {
      expect(contents.navigate('will-navigate', url), url).toBe(true);
    }
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('prevents another daemon port or host name (a different origin)', () => {
    const { contents } = guarded();
    expect(contents.navigate('will-navigate', 'http://127.0.0.1:9999/')).toBe(true);
    expect(contents.navigate('will-navigate', 'http://localhost:7878/')).toBe(true);
  });

  it('prevents redirects away from the origin', () => {
    const { contents, openExternal } = guarded();
    expect(contents.navigate('will-redirect', 'https://evil.example/')).toBe(true);
    expect(contents.navigate('will-redirect', `${ORIGIN}/index.html`)).toBe(false);
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('prevents sub-frames from leaving the origin, leaving the main frame to will-navigate', () => {
    const { contents } = guarded();
    expect(contents.navigate('will-frame-navigate', 'https://evil.example/', { isMainFrame: false })).toBe(true);
    expect(contents.navigate('will-frame-navigate', `${ORIGIN}/x`, { isMainFrame: false })).toBe(false);
    expect(contents.navigate('will-frame-navigate', 'https://example.com/', { isMainFrame: true })).toBe(false);
  });

  it('refuses to attach webviews', () => {
    const { contents } = guarded();
    expect(contents.navigate('will-attach-webview', 'https://example.com/')).toBe(true);
  });

  it('denies every window.open, sending http(s) URLs to the browser', () => {
    const { contents, openExternal } = guarded();
    expect(contents.openHandler?.({ url: 'https://example.com/badge.png' })).toEqual({ action: 'deny' });
    expect(contents.openHandler?.({ url: `${ORIGIN}/s/abc` })).toEqual({ action: 'deny' });
    expect(contents.openHandler?.({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(openExternal.mock.calls.map(([url]) => url)).toEqual(['https://example.com/badge.png', `${ORIGIN}/s/abc`]);
  });
});

describe('handleWindowOpen', () => {
  it('survives a browser that fails to open', async () => {
    const openExternal = vi.fn(async () => {
      throw new Error('no browser');
    });
    expect(handleWindowOpen({ url: 'https://example.com/' }, openExternal)).toEqual({ action: 'deny' });
    await vi.waitFor(() => expect(openExternal).toHaveBeenCalled());
  });
});
