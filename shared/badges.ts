/**
 * Role badges (issue 29): what a role's `badge` may be, the daemon's built-in badges and the
 * pictures an admin uploads. A badge is optional; when given it is one of
 * - a built-in badge, `/badges/<name>.svg`, drawn by the daemon (daemon/http/badges.ts);
 * - an uploaded picture, `/badges/uploaded/<id>.<ext>`, kept in the store and served by the daemon;
 * - an http(s) URL an admin typed: the only way a page of Nimbus loads an image from another host.
 * The daemon stores its own badges as paths and answers them as URLs on its address (DaneeCloud's
 * clients expect a URL); a client may send either back.
 */
import { checkBadgeUrl, type Checked } from './validation.js';

/** The built-in badges, in the order the role dialog offers them. */
export const BUILT_IN_BADGE_NAMES = ['user', 'admin', 'team', 'guest', 'star', 'heart'] as const;
export type BuiltInBadgeName = (typeof BUILT_IN_BADGE_NAMES)[number];

export const builtInBadgePath = (name: BuiltInBadgeName): string => `/badges/${name}.svg`;

/**
 * The largest picture an upload may be. A badge is shown at 14–32 px, and its bytes live in the
 * store (db.json, or PostgreSQL in the cluster mode) beside the role: a 128×128 PNG is a few KiB.
 */
export const BADGE_UPLOAD_MAX_BYTES = 64 * 1024;

/**
 * The picture types an upload may be, by the extension its path gets. No SVG: an SVG is a
 * document that can carry script, and an admin's upload is served from the UI's own origin.
 */
export const BADGE_MEDIA_TYPES = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' } as const;
export type BadgeImageType = keyof typeof BADGE_MEDIA_TYPES;

const BUILT_IN_PATH = /^\/badges\/([a-z]+)\.svg$/;
const UPLOADED_FILE = /^([0-9a-f]{32})\.(png|jpg|webp)$/;
export const UPLOADED_BADGE_PREFIX = '/badges/uploaded/';

/** The file name of an uploaded badge's path (`<32 hex>.png`), or a failure. */
export function checkUploadedBadgeFile(raw: string): Checked<string> {
  return UPLOADED_FILE.test(raw) ? { ok: true, value: raw } : { ok: false, message: 'is not an uploaded badge' };
}

/** Whether a path is one of the daemon's own badges: a built-in one or an uploaded picture. */
export function isOwnBadgePath(path: string): boolean {
  const builtIn = BUILT_IN_PATH.exec(path)?.[1];
  if (builtIn !== undefined) return (BUILT_IN_BADGE_NAMES as readonly string[]).includes(builtIn);
  return path.startsWith(UPLOADED_BADGE_PREFIX) && UPLOADED_FILE.test(path.slice(UPLOADED_BADGE_PREFIX.length));
}

/** A role's badge as a parameter: a path of the daemon's own badges, or an http(s) URL. (No badge is no parameter.) */
export function checkBadge(raw: string): Checked<string> {
  if (raw.startsWith('/'))
    return isOwnBadgePath(raw)
      ? { ok: true, value: raw }
      : { ok: false, message: 'must be an http(s) URL or a path of a badge of this daemon' };
  return checkBadgeUrl(raw);
}

/** The picture's type from its first bytes (its magic number), whatever its name or Content-Type say; null for anything else. */
export function sniffBadgeType(bytes: Uint8Array): BadgeImageType | null {
  const starts = (offset: number, signature: readonly number[]) => signature.every((byte, i) => bytes[offset + i] === byte);
  if (starts(0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (starts(0, [0xff, 0xd8, 0xff])) return 'jpg';
  // RIFF <length> WEBP
  if (starts(0, [0x52, 0x49, 0x46, 0x46]) && starts(8, [0x57, 0x45, 0x42, 0x50])) return 'webp';
  return null;
}
