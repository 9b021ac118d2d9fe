import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { CallParams } from '../../../shared/endpoints';
import type { ShareInfo, ShareKind } from '../../../shared/types';
import { ApiError, errorMessage } from '../../api/client';
import { queryKeys } from '../../api/queryKeys';
import { useClient } from '../Session/sessionContext';

type Options = Omit<CallParams<'shares.edit'>, 'username' | 'file' | 'folder' | 'upload'>;

/** What a link no longer there is said to be, by its kind. */
export const GONE = { file: 'gone', folder: 'goneFolder', upload: 'goneUpload' } as const satisfies Record<ShareKind, string>;

/** A failed edit in the owner's words: the daemon's English is for API clients. */
export function editError(error: unknown, t: TFunction, kind: ShareKind = 'file'): string {
  if (error instanceof ApiError && error.code === 'share_not_found') return t(`share:options.${GONE[kind] ?? 'gone'}`);
  if (error instanceof ApiError && error.code === 'invalid_parameter' && /expir/i.test(error.message)) return t('share:options.expiryPast');
  return errorMessage(error);
}

/**
 * Sends one link's option changes (`shares.edit`: a file's by its name; a folder's link, or with
 * `upload` its upload link, by the folder alone) and puts the link the daemon answers into the
 * list at once (then asks for the list again); `problem` and `done` are what to say after.
 */
export function useShareEdit(username: string, share: Pick<ShareInfo, 'kind' | 'url' | 'folder' | 'file'>) {
  const { t } = useTranslation();
  const client = useClient();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  async function send(options: Options, doneText: string): Promise<ShareInfo | null> {
    setBusy(true);
    setProblem(null);
    setDone(null);
    const key = queryKeys.shares(username);
    try {
      const { share: next } = await client.call('shares.edit', {
        username,
        folder: share.folder ?? undefined,
        file: share.kind === 'file' ? share.file : undefined,
        upload: share.kind === 'upload' || undefined,
        ...options,
      });
      queryClient.setQueryData<ShareInfo[]>(key, (list) => list?.map((other) => (other.url === next.url ? next : other)));
      setDone(doneText);
      return next;
    } catch (error) {
      setProblem(editError(error, t, share.kind));
      return null;
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: key });
    }
  }

  function clear() {
    setProblem(null);
    setDone(null);
  }

  return { busy, problem, done, send, setProblem, clear };
}
