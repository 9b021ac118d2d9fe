import type { HandlerDetails, WebContents } from 'electron';

/** The origin of a URL, or null when it is not a URL. */
export function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

export function isSameOrigin(url: string, origin: string): boolean {
  return originOf(url) === origin;
}

/** True for the only schemes Nimbus hands to the OS: http and https. */
export function isWebUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

type OpenExternal = (url: string) => Promise<void>;

/**
 * `window.open` and `target=_blank` links never make a new Electron window: http(s) links
 * go to the default browser, everything else is dropped.
 */
export function handleWindowOpen(details: Pick<HandlerDetails, 'url'>, openExternal: OpenExternal): { action: 'deny' } {
  if (isWebUrl(details.url)) void openExternal(details.url).catch(() => undefined);
  return { action: 'deny' };
}

/**
 * Keeps a WebContents on the daemon's origin: navigation and redirects elsewhere are
 * prevented (an http(s) link opens in the browser instead), new windows are denied.
 */
export function guardWebContents(
  contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>,
  origin: string,
  openExternal: OpenExternal,
): void {
  const keepOnOrigin = (event: { preventDefault(): void }, url: string) => {
    // Same origin covers reloads and the UI's own links; anything else leaves the app.
    if (isSameOrigin(url, origin)) return;
    event.preventDefault();
    if (isWebUrl(url)) void openExternal(url).catch(() => undefined);
  };
  contents.on('will-navigate', (event) => keepOnOrigin(event, event.url));
  // Frames and server redirects may not leave the origin either; they open nothing.
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame && !isSameOrigin(event.url, origin)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!isSameOrigin(event.url, origin)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler((details) => handleWindowOpen(details, openExternal));
}
