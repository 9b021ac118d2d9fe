import { EditorView } from '@codemirror/view';
import type { Extension } from '@codemirror/state';
import { currentTheme } from '../../lib/theme';

/**
 * The editor drawn in the page's own colours: every colour is one of global.css's variables,
 * so it follows the page's light or dark theme (the media query, or a `data-theme` the page
 * sets) without a second palette. Tokens carry @lezer/highlight's `tok-*` classes, coloured in
 * TextEditor.css the same way.
 */
const colours = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--surface)', height: '100%', fontSize: '14px' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': { fontFamily: 'var(--font-mono)', lineHeight: '1.55' },
  '.cm-content': { caretColor: 'var(--text)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--text)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, ::selection': {
    backgroundColor: 'var(--row-selected-focus)',
  },
  '.cm-gutters': { backgroundColor: 'var(--surface-sunken)', color: 'var(--text-muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'var(--row-hover)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--row-selected)', color: 'var(--text)' },
  '.cm-searchMatch': { backgroundColor: 'var(--warning-soft)', outline: '1px solid var(--warning)' },
  '.cm-searchMatch.cm-searchMatch-selected': { backgroundColor: 'var(--accent-soft)' },
  '.cm-matchingBracket': { backgroundColor: 'var(--accent-soft)', outline: '1px solid var(--accent)' },
  '.cm-panels': { backgroundColor: 'var(--surface-raised)', color: 'var(--text)' },
  '.cm-panels.cm-panels-top': { borderBottom: '1px solid var(--border)' },
  '.cm-panel.cm-search': { padding: '6px 8px', fontSize: '13px' },
  '.cm-panel.cm-search input, .cm-panel.cm-search button, .cm-panel.cm-search label': { fontSize: '13px' },
  '.cm-textfield': {
    backgroundColor: 'var(--surface)',
    color: 'var(--text)',
    border: '1px solid var(--border-strong)',
    borderRadius: '4px',
  },
  '.cm-button': {
    backgroundImage: 'none',
    backgroundColor: 'var(--surface-sunken)',
    color: 'var(--text)',
    border: '1px solid var(--border-strong)',
  },
  '.cm-panel.cm-search [name=close]': { color: 'var(--text-muted)', fontSize: '18px' },
});

/** Whether the page is dark now: the theme chosen in Settings (lib/theme.ts), or the system's when that is System. */
export function pageIsDark(): boolean {
  const theme = currentTheme();
  if (theme !== 'system') return theme === 'dark';
  return window.matchMedia('(prefers-color-scheme: dark)').matches;
}

/** The theme for the page as it is: CodeMirror's own defaults (the search panel's) differ for a dark page. */
export const editorTheme = (dark: boolean): Extension => [colours, EditorView.theme({}, { dark })];

/** Calls `onChange` when the page's theme may have changed (the system's scheme, or `data-theme`/`class` on <html>); answers the unsubscribe. */
export function watchPageTheme(onChange: () => void): () => void {
  const media = window.matchMedia('(prefers-color-scheme: dark)');
  media.addEventListener('change', onChange);
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme', 'class', 'style'] });
  return () => {
    media.removeEventListener('change', onChange);
    observer.disconnect();
  };
}
