import type { ComponentProps } from 'react';
import { lazyWithStaleFallback } from '../StaleChunk/lazyWithStaleFallback';
import type { PreviewViewer } from './PreviewViewer';

// A chunk of its own (docs/explorer.md, "How the UI is served"), fetched at the first preview.
const Viewer = lazyWithStaleFallback(() => import('./PreviewViewer').then((module) => module.PreviewViewer));

/** The preview viewer (images, PDF, text, media), loaded when first opened. */
export function LazyPreviewViewer(props: ComponentProps<typeof PreviewViewer>) {
  return <Viewer {...props} />;
}
