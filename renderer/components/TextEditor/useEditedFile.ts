import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { FileEntry } from '../../../shared/types';
import { errorMessage } from '../../api/client';
import { useSession } from '../Session/sessionContext';
import { NotUtf8Error, copyName, fitsEditor, type TextFormat } from './editableText';
import { ChangedSinceOpenedError, openText, saveCopy, saveText, type FilePlace, type FileStamp } from './editorFile';

export type Loaded =
  | { status: 'loading' }
  | { status: 'tooLarge' }
  | { status: 'notUtf8' }
  | { status: 'failed'; message: string }
  | { status: 'ready'; text: string; revision: number };

/** What the last save (or its attempt) came to, for the editor's status line. */
export type SaveState =
  | { status: 'idle' }
  | { status: 'saving' }
  | { status: 'saved' }
  | { status: 'copied'; name: string }
  | { status: 'failed'; message: string };

/** Names tried for a copy before giving up (`notes (copy 20).md`). */
const COPY_ATTEMPTS = 20;

/**
 * One file open in the editor: its text loaded, what the person typed, and the saves. A save
 * goes over the file only while it is still what was opened (editorFile.ts); otherwise it is
 * refused, the typed text stays, and it can be kept as a copy or dropped for a reload.
 */
export function useEditedFile(username: string, file: FileEntry) {
  const { t } = useTranslation();
  const { client } = useSession();
  const place = useMemo<FilePlace>(() => ({ username, folder: file.folder, file: file.name }), [username, file.folder, file.name]);
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  const [revision, setRevision] = useState(0);
  const [dirty, setDirty] = useState(false);
  const [saveState, setSaveState] = useState<SaveState>({ status: 'idle' });
  // A save found the file changed since it was opened: until a reload, saving over it stays refused.
  const [conflict, setConflict] = useState(false);
  const opened = useRef<{ text: string; format: TextFormat; stamp: FileStamp } | null>(null);
  const draft = useRef('');
  const tooLarge = !fitsEditor(file);

  useEffect(() => {
    if (tooLarge) return;
    const controller = new AbortController();
    openText(client, place, controller.signal).then(
      (text) => {
        opened.current = text;
        draft.current = text.text;
        setDirty(false);
        setSaveState({ status: 'idle' });
        setConflict(false);
        setLoaded({ status: 'ready', text: text.text, revision });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setLoaded(error instanceof NotUtf8Error ? { status: 'notUtf8' } : { status: 'failed', message: errorMessage(error) });
      },
    );
    return () => controller.abort();
  }, [client, place, revision, tooLarge]);

  const onChange = useCallback((text: string) => {
    draft.current = text;
    setDirty(text !== opened.current?.text);
    setSaveState((state) => (state.status === 'saved' || state.status === 'copied' ? { status: 'idle' } : state));
  }, []);

  /** Saves over the file; true when it is saved (or there was nothing to save). */
  const save = useCallback(async (): Promise<boolean> => {
    const current = opened.current;
    if (!current) return false;
    if (draft.current === current.text) return true;
    const text = draft.current;
    setSaveState({ status: 'saving' });
    try {
      const stamp = await saveText(client, place, text, current.format, current.stamp);
      opened.current = { ...current, text, stamp };
      setDirty(draft.current !== text);
      setConflict(false);
      setSaveState({ status: 'saved' });
      return true;
    } catch (error) {
      const changed = error instanceof ChangedSinceOpenedError;
      if (changed) setConflict(true);
      setSaveState(changed ? { status: 'idle' } : { status: 'failed', message: errorMessage(error) });
      return false;
    }
  }, [client, place]);

  /** Keeps the typed text beside the file under a free name; the file itself is left as it is. */
  const saveAsCopy = useCallback(async () => {
    const current = opened.current;
    if (!current) return;
    setSaveState({ status: 'saving' });
    try {
      for (let attempt = 1; attempt <= COPY_ATTEMPTS; attempt++) {
        const name = copyName(file.name, attempt, t('editor:copyWord'));
        if (await saveCopy(client, place, name, draft.current, current.format)) {
          // The text is safe under its new name: closing need not ask any more.
          opened.current = { ...current, text: draft.current };
          setDirty(false);
          setSaveState({ status: 'copied', name });
          return;
        }
      }
      setSaveState({ status: 'failed', message: t('editor:noCopyName') });
    } catch (error) {
      setSaveState({ status: 'failed', message: errorMessage(error) });
    }
  }, [client, file.name, place, t]);

  /** Drops the typed text and opens the file as it is now. */
  const reload = useCallback(() => {
    setLoaded({ status: 'loading' });
    setRevision((value) => value + 1);
  }, []);

  const shown: Loaded = tooLarge ? { status: 'tooLarge' } : loaded;
  return { loaded: shown, dirty, saveState, conflict, onChange, save, saveAsCopy, reload };
}
