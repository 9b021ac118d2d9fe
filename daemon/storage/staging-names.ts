/**
 * The hidden names the daemon writes inside a user's tree while it works, each renamed into
 * place or removed when the work ends. A crash in between leaves one behind: reserved names
 * (shared/validation.ts) are never indexed nor counted, so the first scan reports the ones it
 * meets (scan-rules.ts) and the start-up removes them (leftovers.ts). Only these patterns are
 * removed; other reserved names (the `.nimbus-storage` marker, tombstones) have their own handling.
 */
import { randomBytes } from 'node:crypto';

/** A folder copy's directory beside its target, until it is renamed into place (folder-copy.ts). */
export const copyingName = (): string => `.nimbus-copy-${randomBytes(12).toString('hex')}`;

/** An entry copied across disks (into or out of the trash), until it takes its own name (trash-moves.ts). */
export const stagedName = (): string => `.nimbus-staged-${randomBytes(12).toString('hex')}`;

/** A replacing upload's file copied across disks, until it is renamed over the old one (uploads.ts). */
export const replacingName = (): string => `.nimbus-${randomBytes(6).toString('hex')}`;

/** The names `stagedName` makes (the trash's start-up check removes them there too, trash-upkeep.ts). */
export const STAGED = /^\.nimbus-staged-[0-9a-f]{24}$/;

const STAGING = /^\.nimbus-(?:copy-[0-9a-f]{24}|staged-[0-9a-f]{24}|[0-9a-f]{12})$/;

/** Whether a name is one of the above: work of the daemon's own that a crash may have cut short. */
export const isStagingName = (name: string): boolean => STAGING.test(name);
