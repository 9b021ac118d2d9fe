/**
 * Files dropped on the explorer by a caller who may only read (a `read` key): the daemon would
 * refuse each upload with 403, so nothing is sent and the person is told why, in their language.
 */
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useCanWrite } from '../Session/sessionContext';
import { useToast } from '../Toasts/toastContext';

interface DropHandlers {
  onFiles: (files: File[]) => void;
  onEntries: (entries: FileSystemEntry[]) => void;
}

/** The upload handlers for a writer; for a reader, handlers that upload nothing and say so, and the overlay's refusal. */
export function useReadOnlyDrop(uploads: DropHandlers): DropHandlers & { refusal: string | undefined } {
  const { t } = useTranslation();
  const toast = useToast();
  const canWrite = useCanWrite();
  const refuse = useCallback(() => void toast.show({ kind: 'info', title: t('explorer:dropzone.readOnly') }), [toast, t]);
  if (canWrite) return { onFiles: uploads.onFiles, onEntries: uploads.onEntries, refusal: undefined };
  return { onFiles: refuse, onEntries: refuse, refusal: t('explorer:dropzone.readOnlyTitle') };
}
