import { Suspense, lazy, useEffect, type ComponentProps, type ComponentType } from 'react';
import { useTranslation } from 'react-i18next';
import { useToast } from '../Toasts/toastContext';
import type { TextEditorDialog } from './TextEditorDialog';

type EditorProps = ComponentProps<typeof TextEditorDialog>;

/** What stands for the editor when its chunk cannot be fetched (the daemon was updated under this page): a reload is offered. */
function StaleEditor({ onClose }: EditorProps) {
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

// CodeMirror is a chunk of its own (each language another), fetched when a file is first edited.
const Editor = lazy<ComponentType<EditorProps>>(() =>
  import('./TextEditorDialog').then(
    (module) => ({ default: module.TextEditorDialog }),
    () => ({ default: StaleEditor }),
  ),
);

/** The text editor, loaded when first opened. */
export function LazyTextEditor(props: EditorProps) {
  return (
    <Suspense fallback={null}>
      <Editor {...props} />
    </Suspense>
  );
}
