import type { ComponentProps } from 'react';
import { lazyWithStaleFallback } from '../StaleChunk/lazyWithStaleFallback';
import type { TextEditorDialog } from './TextEditorDialog';

// CodeMirror is a chunk of its own (each language another), fetched when a file is first edited.
const Editor = lazyWithStaleFallback(() => import('./TextEditorDialog').then((module) => module.TextEditorDialog));

/** The text editor, loaded when first opened. */
export function LazyTextEditor(props: ComponentProps<typeof TextEditorDialog>) {
  return <Editor {...props} />;
}
