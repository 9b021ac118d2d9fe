/**
 * The files' entries of a PROPFIND Depth 1 listing. A file's <D:response> is kept with the
 * index's meta object of the file, and used again while the href, the properties asked and the
 * identity object are the same (storage keeps a strong identity's object for a minute,
 * `fileIdentities`): a folder listed again, as file managers do all the time, writes only what
 * changed. Any change the index learns of puts a new meta object there. Never kept: an entry
 * with locks or dead properties, a weak identity (it turns strong), or an answer holding the
 * quota (it moves with every upload). The cost is the entries' text in memory while their
 * files are unchanged (~750 bytes a file for allprop).
 */
import type { NimbusContext } from '../../context.js';
import type { FileIdentity } from '../../storage/file-storage.js';
import type { FileMeta } from '../../storage/index-tree.js';
import { answer, type Asked, type Wanted } from './answer.js';
import { encodeSegment, joinPath } from './paths.js';
import type { PropSource } from './props.js';
import { deadProps, locksCovering } from './state.js';

interface Rendered {
  href: string;
  asked: string;
  identity: FileIdentity;
  xml: string;
}
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
  out: string[],
): Promise<void> {
  const files = nimbus.index.files(username, folder);
  if (!files || files.size === 0) return;
  const identities = await nimbus.storage.fileIdentities(username, folder);
  const askedKey = wanted.kind === 'propname' ? '\0propname' : asked.map((a) => `${a.ns}\0${a.name}`).join('\n');
  const keepable = !asked.some((a) => a.live === 'quota-used-bytes' || a.live === 'quota-available-bytes');
  for (const [name, meta] of files) {
    const href = `${base}${encodeSegment(name)}`;
    const identity = identities.get(name) ?? null;
    const path = joinPath(folder, name);
    const locks = locksCovering(nimbus, username, path);
    const dead = deadProps(nimbus, username, path);
    const keep = keepable && identity !== null && identity.identityIsStrong && locks.length === 0 && dead.length === 0;
    if (keep) {
      const kept = rendered.get(meta);
      if (kept && kept.identity === identity && kept.href === href && kept.asked === askedKey) {
        out.push(kept.xml);
        continue;
      }
    }
    const src: PropSource = { name, collection: false, meta, identity, modifiedMs: meta.mtimeMs, quota, locks };
    const xml = answer(href, src, dead, wanted, asked);
    if (keep) rendered.set(meta, { href, asked: askedKey, identity, xml });
    out.push(xml);
  }
}
