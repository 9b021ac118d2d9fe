// The theme this browser last showed (renderer/lib/theme.ts: `nimbus.appearance`, {theme}) on
// <html> before anything is painted. A classic script in index.html's head blocks the parser, so
// no frame ever shows the other theme; a module would run only after parsing, and the app's own
// module only once its language has loaded. Not inline: the daemon's CSP allows no inline script.
{
  let theme = 'system';
  try {
    const stored = JSON.parse(localStorage.getItem('nimbus.appearance') ?? 'null');
    if (stored && ['system', 'light', 'dark'].includes(stored.theme)) theme = stored.theme;
  } catch {
    // storage disabled or the entry unreadable: the device's theme
  }
  document.documentElement.dataset.theme = theme;
}
