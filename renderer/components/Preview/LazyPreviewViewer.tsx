import { Suspense, lazy, useEffect, type ComponentProps } from 'react';
import { useTranslation } from 'react-i18next';
import { useToast } from '../Toasts/toastContext';
import type { PreviewViewer } from './PreviewViewer';

type ViewerProps = ComponentProps<typeof PreviewViewer>;

/**
 * What stands for the viewer when its chunk cannot be fetched: the daemon was updated under this
 * page, and the new build has other file names. The page says so and offers a reload, rather
 * than a blank window; uploads running in it are left alone.
 */
function StaleViewer({ onClose }: ViewerProps) {
  const { t } = useTranslation();
  const toast = useToast();
  useEffect(() => {
    toast.show({
      kind: 'error',
      title: t('preview:stale'),
      sticky: true,
      action: { label: t('preview:reload'), run: () => location.reload() },
    });
    onClose();
  }, [onClose, t, toast]);
  return null;
}

// A chunk of its own (docs/explorer.md, "How the UI is served"), fetched at the first preview.
const Viewer = lazy(() =>
  import('./PreviewViewer').then(
    (module) => ({ default: module.PreviewViewer }),
    () => ({ default: StaleViewer }),
  ),
);

/** The preview viewer (images, PDF, text, media), loaded when first opened. */
export function LazyPreviewViewer(props: ViewerProps) {
  return (
    <Suspense fallback={null}>
      <Viewer {...props} />
    </Suspense>
  );
}
