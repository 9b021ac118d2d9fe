/**
 * The live properties of a resource as PROPFIND answers them (RFC 4918 §15, RFC 4331), written
 * as text. A file's getetag, getlastmodified, getcontentlength and getcontenttype are the
 * headers its download sends (validatorsOf, mimeTypeOf); a folder's date is its subtree's
 * latest, as the API's `modifiedAt`.
 */
import type { FileIdentity } from '../../storage/file-storage.js';
import type { FileMeta } from '../../storage/index-tree.js';
import { mimeTypeOf } from '../../services/records.js';
import { validatorsOf } from '../conditional.js';
import { hrefOf } from './paths.js';
import type { DavLock } from './state.js';
import { escapeXml } from './xml.js';

/** The live properties this server knows, in DAV:, in the order allprop lists them. */
export const LIVE_PROPS = [
  'resourcetype',
  'displayname',
  'getcontentlength',
  'getcontenttype',
  'getetag',
  'getlastmodified',
  'creationdate',
  'supportedlock',
  'lockdiscovery',
  'quota-available-bytes',
  'quota-used-bytes',
] as const;
export type LiveProp = (typeof LIVE_PROPS)[number];
/** RFC 4331 §3: quota properties are not part of allprop (they cost a computation some servers avoid); asked by name they are. */
export const ALLPROP = LIVE_PROPS.filter((p) => p !== 'quota-available-bytes' && p !== 'quota-used-bytes');

/** What a resource's live properties are made from. */
export interface PropSource {
  name: string;
  collection: boolean;
  /** Files: size, and the identity a download would name them by (null: not known, no getetag). */
  meta?: FileMeta;
  identity?: FileIdentity | null;
  /** Folders: the subtree's latest change; files take it from `meta`. */
  modifiedMs: number;
  quota: { usedBytes: number; maxBytes: number };
  locks: DavLock[];
}

const SUPPORTED_LOCK =
  '<D:lockentry><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>' +
  '<D:lockentry><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>';

/** The element of a live property, or null where the resource has none (a folder's getetag, unlimited quota's available bytes). */
export function liveProp(prop: LiveProp, src: PropSource): string | null {
  switch (prop) {
    case 'resourcetype':
      return src.collection ? '<D:resourcetype><D:collection/></D:resourcetype>' : '<D:resourcetype/>';
    case 'displayname':
      return `<D:displayname>${escapeXml(src.name)}</D:displayname>`;
    case 'getcontentlength':
      return src.meta ? `<D:getcontentlength>${src.meta.size}</D:getcontentlength>` : null;
    case 'getcontenttype':
      return src.collection ? null : `<D:getcontenttype>${escapeXml(mimeTypeOf(src.name))}</D:getcontenttype>`;
    case 'getetag':
      return src.identity ? `<D:getetag>${etagOf(src.identity)}</D:getetag>` : null;
    case 'getlastmodified':
      return `<D:getlastmodified>${new Date(lastModifiedMs(src)).toUTCString()}</D:getlastmodified>`;
    case 'creationdate':
      // No file system here keeps a birth time the daemon can rely on: the last change stands in.
      return `<D:creationdate>${new Date(lastModifiedMs(src)).toISOString()}</D:creationdate>`;
    case 'supportedlock':
      return `<D:supportedlock>${SUPPORTED_LOCK}</D:supportedlock>`;
    case 'lockdiscovery':
      return `<D:lockdiscovery>${src.locks.map(activeLock).join('')}</D:lockdiscovery>`;
    case 'quota-used-bytes':
      return `<D:quota-used-bytes>${src.quota.usedBytes}</D:quota-used-bytes>`;
    case 'quota-available-bytes':
      return src.quota.maxBytes < 0
        ? null
        : `<D:quota-available-bytes>${Math.max(0, src.quota.maxBytes - src.quota.usedBytes)}</D:quota-available-bytes>`;
  }
}

/** A file's ETag as the download sends it, escaped; kept with the identity object a listing may see again (storage's knownIdentities). */
const etags = new WeakMap<FileIdentity, string>();
function etagOf(identity: FileIdentity): string {
  let tag = etags.get(identity);
  if (tag === undefined) {
    tag = escapeXml(validatorsOf(identity).etag);
    etags.set(identity, tag);
  }
  return tag;
}

/** The date a download's Last-Modified names (the opened file's mtime), else the index's. */
const lastModifiedMs = (src: PropSource): number => src.identity?.mtimeMs ?? src.meta?.mtimeMs ?? src.modifiedMs;

/** One <D:activelock> of a lockdiscovery (RFC 4918 §14.1). */
export function activeLock(lock: DavLock): string {
  const seconds = Math.max(0, Math.round((lock.expiresAt - Date.now()) / 1000));
  return (
    `<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope><D:${lock.scope}/></D:lockscope>` +
    `<D:depth>${lock.depth === '0' ? '0' : 'infinity'}</D:depth>` +
    (lock.owner ? `<D:owner>${lock.owner}</D:owner>` : '') +
    `<D:timeout>Second-${seconds}</D:timeout>` +
    `<D:locktoken><D:href>${escapeXml(lock.token)}</D:href></D:locktoken>` +
    `<D:lockroot><D:href>${escapeXml(hrefOf(lock.username, lock.lockRoot, false))}</D:href></D:lockroot></D:activelock>`
  );
}
