/** The ids of object mode's rows and the keys of their objects (docs/cluster.md: `files/<id>`, 32 random hex digits). */
import { randomBytes } from 'node:crypto';

export const FILES_PREFIX = 'files/';

export const newId = (): string => randomBytes(16).toString('hex');

export const objectKey = (fileId: string): string => `${FILES_PREFIX}${fileId}`;

/** The file id an object key names, or null for a key that is not one of ours. */
export function fileIdOf(key: string): string | null {
  const id = key.slice(FILES_PREFIX.length);
  return key.startsWith(FILES_PREFIX) && /^[0-9a-f]{32}$/.test(id) ? id : null;
}
