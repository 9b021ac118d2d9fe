import { useEffect, useState } from 'react';
import type { FileEntry } from '../../../shared/types';
import { fetchObjectUrl, linkUrl, linksAreDirect } from '../../api/links';
import { KIND_ICON, fileKind } from '../../lib/fileIcon';
import { useSession } from '../Session/sessionContext';

const THUMBNAIL_SIZE = 256;

/** Whether the daemon can draw this file (files.thumbnail): images, never SVG (415: not rasterised). */
export function hasThumbnail(file: FileEntry): boolean {
  const svg = file.mimeType === 'image/svg+xml' || file.name.toLowerCase().endsWith('.svg');
  return !svg && fileKind(file.name, file.mimeType) === 'image';
}

/** The address of a file's thumbnail: a plain link, or (a page holding the key) an object URL fetched with it. */
function useThumbnailUrl(username: string, file: FileEntry, wanted: boolean): string | null {
  const session = useSession();
  const direct = linksAreDirect(session);
  const url = linkUrl(session.client, 'files.thumbnail', {
    username,
    file: file.name,
    folder: file.folder ?? undefined,
    size: THUMBNAIL_SIZE,
  });
  // The listing's modifiedAt changes with the file: a new address, so no stale picture from the cache.
  const versioned = `${url}&v=${encodeURIComponent(file.modifiedAt)}`;
  const [objectUrl, setObjectUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!wanted || direct) return;
    const abort = new AbortController();
    let made: string | null = null;
    fetchObjectUrl(session.client, url, abort.signal)
      .then((result) => {
        made = result;
        setObjectUrl(result);
      })
      .catch(() => setObjectUrl(null));
    return () => {
      abort.abort();
      if (made) URL.revokeObjectURL(made);
    };
  }, [wanted, direct, session.client, url]);
  if (!wanted) return null;
  return direct ? versioned : objectUrl;
}

/** A card's picture: the thumbnail, lazily loaded, or the file type's icon for what has none. */
export function Thumbnail({ username, file }: { username: string; file: FileEntry }) {
  const [failed, setFailed] = useState(false);
  const src = useThumbnailUrl(username, file, hasThumbnail(file) && !failed);
  const kind = fileKind(file.name, file.mimeType);
  if (src) {
    return <img className="fg__thumb" src={src} alt="" loading="lazy" decoding="async" draggable={false} onError={() => setFailed(true)} />;
  }
  const Icon = KIND_ICON[kind];
  return <Icon size={44} strokeWidth={1.5} className={`ft__icon fg__icon ft__icon--${kind}`} aria-hidden="true" />;
}
