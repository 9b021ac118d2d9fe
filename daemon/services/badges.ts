/**
 * Pictures uploaded for roles' badges (issue 29, shared/badges.ts). The bytes are kept in the
 * store, base64, so that every daemon of a cluster serves them without a shared disk; they are
 * small (64 KiB at most) and few: a picture no role uses is pruned a day after its upload.
 */
import { createHash } from 'node:crypto';
import { BADGE_UPLOAD_MAX_BYTES, UPLOADED_BADGE_PREFIX, sniffBadgeType } from '../../shared/badges.js';
import type { NimbusContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import type { StoredBadge } from '../store/schema.js';

/** How long an uploaded picture waits for a role to use it (the dialog it was chosen in may still be open). */
const UNUSED_GRACE_MS = 24 * 60 * 60 * 1000;

const badgesOf = (nimbus: NimbusContext) => nimbus.store.collection('badges');

export const uploadedBadgePath = (badge: Pick<StoredBadge, 'id' | 'type'>): string => `${UPLOADED_BADGE_PREFIX}${badge.id}.${badge.type}`;

/** Keeps a picture for a badge: its type from its bytes (PNG, JPEG or WebP), else 415. Answers its path. */
export async function saveBadge(nimbus: NimbusContext, bytes: Buffer): Promise<string> {
  if (bytes.length === 0) throw badRequest('The body is empty: send the picture’s bytes', 'bad_request');
  if (bytes.length > BADGE_UPLOAD_MAX_BYTES) throw tooLarge();
  const type = sniffBadgeType(bytes);
  if (type === null) throw new ApiError('unsupported_media_type', 'A badge must be a PNG, JPEG or WebP picture');
  const id = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
  const badges = badgesOf(nimbus);
  pruneUnused(nimbus, Date.now());
  // The same bytes are the same record: a new upload only renews its grace.
  badges.set(id, { id, type, data: bytes.toString('base64'), uploadedAt: new Date().toISOString() });
  await nimbus.store.commit();
  return uploadedBadgePath({ id, type });
}

/** The picture a file name (`<id>.<type>`) names, or null. */
export function findBadge(nimbus: NimbusContext, file: string): { type: StoredBadge['type']; bytes: Buffer; id: string } | null {
  const [id, type] = file.split('.');
  const badge = badgesOf(nimbus).get(id);
  return badge && badge.type === type ? { id, type: badge.type, bytes: Buffer.from(badge.data, 'base64') } : null;
}

/** 400 when `badge` names an uploaded picture this daemon does not have (a role must not point at nothing). */
export function assertBadgeKept(nimbus: NimbusContext, badge: string): void {
  if (!badge.startsWith(UPLOADED_BADGE_PREFIX)) return;
  if (findBadge(nimbus, badge.slice(UPLOADED_BADGE_PREFIX.length)) === null)
    throw badRequest('Parameter badge names no uploaded badge: upload the picture again');
}

export const tooLarge = () => new ApiError('payload_too_large', `A badge picture may be at most ${BADGE_UPLOAD_MAX_BYTES / 1024} KiB`);

/** Drops the pictures no role uses whose grace is over; the caller commits. */
function pruneUnused(nimbus: NimbusContext, now: number): void {
  const used = new Set([...nimbus.store.roles.values()].map((role) => role.badge));
  for (const badge of badgesOf(nimbus).values()) {
    if (used.has(uploadedBadgePath(badge))) continue;
    if (now - Date.parse(badge.uploadedAt) > UNUSED_GRACE_MS) badgesOf(nimbus).delete(badge.id);
  }
}
