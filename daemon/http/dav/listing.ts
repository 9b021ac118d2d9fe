/**
 * The files' entries of a PROPFIND Depth 1 listing. A file's <D:response> is kept, as UTF-8
 * bytes, with the index's meta object of the file, and used again while the folder's href, the
 * properties asked and the identity object are the same (storage keeps a strong identity's
 * object for a minute, `fileIdentities`): a folder listed again, as file managers do all the
 * time, writes only what changed. Any change the index learns of puts a new meta object there.
 * Never kept: an entry with locks or dead properties, a weak identity (it turns strong), or an
 * answer holding the quota (it moves with every upload). The cost is the entries' bytes in
 * memory while their files are unchanged (~750 bytes a file for allprop).
 *
 * Why bytes: a 10,000-entry answer joined from kept strings was flattened and then encoded to
 * UTF-8 again on every request (`WriteToFlat` and `Utf8Length`, 23 % of the daemon's CPU in the
 * profile of that listing); kept bytes are copied once into the answer (xml.ts, `multistatus`).
 */
import type { NimbusContext } from '../../context.js';
import type { FileIdentity } from '../../storage/file-storage.js';
import type { FileMeta } from '../../storage/index-tree.js';
import { answer, type Asked, type Wanted } from './answer.js';
import { encodeSegment, joinPath } from './paths.js';
import type { PropSource } from './props.js';
import { anyDeadProps, deadProps, liveLocksOf, locksCovering, type DavLock, type DeadProp } from './state.js';

interface Rendered {
  /** The href of the folder the entry was listed in (the file's is it and the encoded name). */
  base: string;
  asked: string;
  identity: FileIdentity;
  bytes: Buffer;
}
const NO_LOCKS: DavLock[] = [];
const NO_PROPS: DeadProp[] = [];
const rendered = new WeakMap<FileMeta, Rendered>();

/** Appends to `out` the <D:response> of each file of `folder` (hrefs below `base`, the folder's own). */
export async function fileEntries(
  nimbus: NimbusContext,
  username: string,
  folder: string | null,
  base: string,
  quota: PropSource['quota'],
  wanted: Wanted,
  asked: readonly Asked[],
  out: (string | Buffer)[],
): Promise<void> {
  const files = nimbus.index.files(username, folder);
  if (!files || files.size === 0) return;
  const identities = await nimbus.storage.fileIdentities(username, folder);
  const askedKey = wanted.kind === 'propname' ? '\0propname' : asked.map((a) => `${a.ns}\0${a.name}`).join('\n');
  const keepable = !asked.some((a) => a.live === 'quota-used-bytes' || a.live === 'quota-available-bytes');
  // Once per listing: most users hold no lock and no dead property, and then no file needs its own look-up.
  const userLocks = liveLocksOf(nimbus, username);
  const lockFree = userLocks.length === 0;
  const propFree = !anyDeadProps(nimbus, username);
  for (const [name, meta] of files) {
    const identity = identities.get(name) ?? null;
    const path = lockFree && propFree ? '' : joinPath(folder, name);
    const locks = lockFree ? NO_LOCKS : locksCovering(nimbus, username, path, userLocks);
    const dead = propFree ? NO_PROPS : deadProps(nimbus, username, path);
    const keep = keepable && identity !== null && identity.identityIsStrong && locks.length === 0 && dead.length === 0;
    if (keep) {
      const kept = rendered.get(meta);
      if (kept && kept.identity === identity && kept.base === base && kept.asked === askedKey) {
        out.push(kept.bytes);
        continue;
      }
    }
    const src: PropSource = { name, collection: false, meta, identity, modifiedMs: meta.mtimeMs, quota, locks };
    const bytes = Buffer.from(answer(`${base}${encodeSegment(name)}`, src, dead, wanted, asked));
    if (keep) rendered.set(meta, { base, asked: askedKey, identity, bytes });
    out.push(bytes);
  }
}
