/**
 * The role dialog's badge as a choice (issue 29): none, a built-in badge, an uploaded picture or
 * an address an admin typed. The daemon answers its own badges as URLs on its address; they are
 * recognised here so that editing a role shows the choice it was made with.
 */
import { BUILT_IN_BADGE_NAMES, UPLOADED_BADGE_PREFIX, isOwnBadgePath, type BuiltInBadgeName } from '../../../shared/badges';
import { checkBadgeUrl, type Checked } from '../../../shared/validation';

export type BadgeKind = 'none' | 'builtIn' | 'uploaded' | 'url';

/** What the dialog holds: the kind picked, and what each kind had, so switching back loses nothing. */
export interface BadgeDraft {
  kind: BadgeKind;
  builtIn: BuiltInBadgeName;
  /** The uploaded picture's path on the daemon (`/badges/uploaded/<id>.png`); null until one is uploaded. */
  uploaded: string | null;
  url: string;
}

const EMPTY: BadgeDraft = { kind: 'none', builtIn: 'user', uploaded: null, url: '' };

/** The draft for a role's badge as the API answered it; `ownOrigins` are the addresses the daemon answers on. */
export function draftOf(badge: string | undefined, ownOrigins: readonly string[]): BadgeDraft {
  if (!badge) return EMPTY;
  let path: string | null = null;
  try {
    const url = new URL(badge, ownOrigins[0]);
    if (ownOrigins.includes(url.origin) && isOwnBadgePath(url.pathname)) path = url.pathname;
  } catch {
    // Not a URL at all: kept as typed, for the admin to correct.
  }
  if (path?.startsWith(UPLOADED_BADGE_PREFIX)) return { ...EMPTY, kind: 'uploaded', uploaded: path };
  const builtIn = BUILT_IN_BADGE_NAMES.find((name) => path === `/badges/${name}.svg`);
  if (builtIn) return { ...EMPTY, kind: 'builtIn', builtIn };
  return { ...EMPTY, kind: 'url', url: badge };
}

/** What the dialog sends as the role's `badge`: a path of the daemon's own badges, the typed URL, or nothing (no badge). */
export function badgeOf(draft: BadgeDraft): string | undefined {
  switch (draft.kind) {
    case 'none':
      return undefined;
    case 'builtIn':
      return `/badges/${draft.builtIn}.svg`;
    case 'uploaded':
      return draft.uploaded ?? undefined;
    case 'url':
      return draft.url;
  }
}

/** Whether the draft can be saved: a typed address must be an http(s) URL; an upload must have happened. */
export function checkDraft(draft: BadgeDraft): Checked<string | undefined> | { ok: false; message: 'no picture' } {
  if (draft.kind === 'url') return checkBadgeUrl(draft.url);
  if (draft.kind === 'uploaded' && draft.uploaded === null) return { ok: false, message: 'no picture' };
  return { ok: true, value: badgeOf(draft) };
}
