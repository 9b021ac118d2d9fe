import { Suspense, lazy, useEffect, type ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { useToast } from '../Toasts/toastContext';

/** What a lazily loaded dialog needs of its props: a way to close it. */
interface Closable {
  onClose(): void;
}

/**
 * What stands for a dialog when its chunk cannot be fetched: the daemon was updated under this
 * page, and the new build has other file names. The page says so and offers a reload, rather
 * than a blank window; uploads running in it are left alone.
 */
function StaleChunk({ onClose }: Closable) {
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

/**
 * A dialog in a chunk of its own, fetched by `load` when it is first rendered (nothing shows
 * meanwhile). A chunk that cannot be fetched renders StaleChunk instead: it closes the dialog
 * and offers a reload.
 */
export function lazyWithStaleFallback<Props extends Closable>(load: () => Promise<ComponentType<Props>>): ComponentType<Props> {
  const Chunk = lazy<ComponentType<Props>>(() =>
    load().then(
      (component) => ({ default: component }),
      () => ({ default: StaleChunk }),
    ),
  );
  return function LazyChunk(props: Props) {
    return (
      <Suspense fallback={null}>
        <Chunk {...props} />
      </Suspense>
    );
  };
}
