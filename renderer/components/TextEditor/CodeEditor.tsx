import { useEffect, useRef } from 'react';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, syntaxHighlighting } from '@codemirror/language';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { Compartment, EditorState } from '@codemirror/state';
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';
import { editorTheme, pageIsDark, watchPageTheme } from './editorTheme';
import { languageFor } from './languages';

export interface CodeEditorProps {
  /** The text it starts with (a reload mounts a new editor: give it a new `key`). */
  text: string;
  fileName: string;
  /** The text area's accessible name. */
  label: string;
  /** Each change of the text, as one string with `\n` lines. */
  onChange(text: string): void;
  /** Ctrl+S (⌘S). */
  onSave(): void;
}

/**
 * CodeMirror 6 in a React element: line numbers, undo and redo, search (Ctrl+F), the file's
 * language highlighted. Tab is left to move focus (no indent binding), so a keyboard can leave
 * the text for the dialog's buttons.
 */
export function CodeEditor({ text, fileName, label, onChange, onSave }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef({ onChange, onSave });
  useEffect(() => {
    latest.current = { onChange, onSave };
  });

  useEffect(() => {
    const theme = new Compartment();
    const language = new Compartment();
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: text,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightSpecialChars(),
          history(),
          drawSelection(),
          bracketMatching(),
          highlightActiveLine(),
          highlightSelectionMatches(),
          search({ top: true }),
          syntaxHighlighting(classHighlighter),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label }),
          keymap.of([
            { key: 'Mod-s', preventDefault: true, run: () => (latest.current.onSave(), true) },
            ...defaultKeymap,
            ...historyKeymap,
            ...searchKeymap,
          ]),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
          theme.of(editorTheme(pageIsDark())),
          language.of([]),
        ],
      }),
    });
    editor.focus();
    const stopWatching = watchPageTheme(() => editor.dispatch({ effects: theme.reconfigure(editorTheme(pageIsDark())) }));
    let live = true;
    void languageFor(fileName)?.().then((support) => {
      if (live) editor.dispatch({ effects: language.reconfigure(support) });
    });
    return () => {
      live = false;
      stopWatching();
      editor.destroy();
    };
    // Made once: the text is only where it starts, and a new name or label is a new file.
  }, [fileName, label]);

  return <div ref={host} className="text-editor__code" />;
}
