/**
 * Upload links, a folder's "file drop" (docs/sharing.md, "Upload links"): anyone with the link
 * may put files into the folder, and read nothing: no listing, no download. An upload is placed
 * exactly as `files.upload` places a file (durable, the owner's quota, case twins refused,
 * events), never over another file: a taken name becomes `name (2).ext`, `name (3).ext`…
 */
import { checkFileName } from '../../shared/validation.js';
import type { NimbusContext } from '../context.js';
import { badRequest, conflict } from '../errors.js';
import { foldName } from '../storage/file-index.js';
import type { StoredShare } from '../store/schema.js';
import { uploadFile } from './files.js';
import type { Readable } from 'node:stream';

/** How many numbered names a drop tries before it answers 409. */
const MAX_TRIES = 1000;

/** Names being dropped now, per folder (folded): two drops of `a.txt` at once get `a.txt` and `a (2).txt`. */
const dropping = new Set<string>();

/** `report.pdf` → `report (2).pdf`; a name without an extension (or only a leading dot) gets the number at its end. */
export function numberedName(name: string, n: number): string {
  if (n === 1) return name;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

/** Puts one file into an upload link's folder; the name it was stored under. */
export async function dropFile(
  nimbus: NimbusContext,
  share: StoredShare,
  givenName: string,
  upload: { body: Readable; declaredLength: number | null },
): Promise<string> {
  const checked = checkFileName(givenName);
  if (!checked.ok) throw badRequest(`The file name ${checked.message}`);
  const { username } = share;
  const folder = share.folder!;
  for (let n = 1; n <= MAX_TRIES; n++) {
    const name = numberedName(checked.value, n);
    if (checkFileName(name).ok === false) break;
    const key = `${username}\0${foldName(folder)}\0${foldName(name)}`;
    if (dropping.has(key) || nimbus.index.getFile(username, folder, name) || nimbus.index.caseTwin(username, folder, name)) continue;
    dropping.add(key);
    try {
      await uploadFile(nimbus, { username, folder, file: name, overwrite: false, ...upload });
      return name;
    } finally {
      dropping.delete(key);
    }
  }
  throw conflict('file_exists', 'Too many files by that name in the folder already');
}
