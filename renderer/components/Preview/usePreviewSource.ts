import { useEffect, useState } from 'react';
import type { FileEntry } from '../../../shared/types';
import { fetchObjectUrl, linkUrl, linksAreDirect } from '../../api/links';
import { useSession } from '../Session/sessionContext';

/** The address of a file's bytes for viewing (`inline=true`) or saving. */
export function useFileLink(username: string, file: FileEntry, inline: boolean): string {
  const { client } = useSession();
  return linkUrl(client, 'files.download', { username, file: file.name, folder: file.folder ?? undefined, inline: inline || undefined });
}

export type SourceState = { status: 'loading' } | { status: 'ready'; src: string } | { status: 'failed'; error: unknown };

/**
 * What an <img>, <iframe>, <video> or <audio> loads: the inline link itself wherever the
 * browser sends the credential (a session's cookie, the desktop shell's key), so media seek
 * through Range requests and nothing is held in the page. Only a plain browser holding a key
 * fetches the bytes with it into an object URL, released when the file changes or the viewer
 * closes.
 */
export function usePreviewSource(username: string, file: FileEntry): SourceState {
  const session = useSession();
  const direct = linksAreDirect(session);
  const link = useFileLink(username, file, true);
  const [fetched, setFetched] = useState<{ link: string; state: SourceState } | null>(null);

  useEffect(() => {
    if (direct) return;
    const controller = new AbortController();
    let objectUrl: string | null = null;
    fetchObjectUrl(session.client, link, controller.signal).then(
      (url) => {
        if (controller.signal.aborted) {
          URL.revokeObjectURL(url);
          return;
        }
        objectUrl = url;
        setFetched({ link, state: { status: 'ready', src: url } });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setFetched({ link, state: { status: 'failed', error } });
      },
    );
    return () => {
      controller.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [direct, link, session.client]);

  if (direct) return { status: 'ready', src: link };
  return fetched?.link === link ? fetched.state : { status: 'loading' };
}
