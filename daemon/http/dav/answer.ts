/**
 * One resource's <D:response> of a PROPFIND, written as text: what was asked (allprop, propname
 * or named properties), found (200) and missing (404).
 */
import { DAV_NS, escapeXml } from './xml.js';
import { ALLPROP, LIVE_PROPS, liveProp, type LiveProp, type PropSource } from './props.js';
import type { DeadProp } from './state.js';

/** What a PROPFIND asks for. */
export type Wanted =
  | { kind: 'allprop'; include: { ns: string; name: string }[] }
  | { kind: 'propname' }
  | { kind: 'prop'; props: { ns: string; name: string }[] };

const OK_STATUS = '<D:status>HTTP/1.1 200 OK</D:status>';
const MISSING_STATUS = '<D:status>HTTP/1.1 404 Not Found</D:status>';

/** An element naming a property of any namespace, empty. */
export const emptyProp = (ns: string, name: string): string =>
  ns === DAV_NS ? `<D:${name}/>` : ns === '' ? `<${name} xmlns=""/>` : `<X:${name} xmlns:X="${escapeXml(ns)}"/>`;

/** A property asked for, with the live one it names (null: a dead or unknown one). */
export interface Asked {
  ns: string;
  name: string;
  live: LiveProp | null;
}

/** What `wanted` asks of every resource, once per request: deduplicated, the live ones recognised. */
export function askedOf(wanted: Wanted): Asked[] {
  if (wanted.kind === 'propname') return [];
  const list = wanted.kind === 'prop' ? wanted.props : [...ALLPROP.map((name) => ({ ns: DAV_NS, name })), ...wanted.include];
  const seen = new Set<string>();
  const asked: Asked[] = [];
  for (const { ns, name } of list) {
    const key = `${ns}\0${name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    asked.push({ ns, name, live: ns === DAV_NS && (LIVE_PROPS as readonly string[]).includes(name) ? (name as LiveProp) : null });
  }
  return asked;
}

/** One resource's <D:response>: what was asked, found (200) and missing (404). Written by concatenation: it runs once per entry of a listing. */
export function answer(href: string, src: PropSource, dead: readonly DeadProp[], wanted: Wanted, asked: readonly Asked[]): string {
  let found = '';
  let missing = '';
  if (wanted.kind === 'propname') {
    for (const prop of LIVE_PROPS) if (liveProp(prop, src) !== null) found += `<D:${prop}/>`;
    for (const d of dead) found += emptyProp(d.ns, d.name);
  } else {
    for (const a of asked) {
      const live = a.live === null ? null : liveProp(a.live, src);
      if (live !== null) found += live;
      else if (dead.length > 0 && dead.some((d) => d.ns === a.ns && d.name === a.name)) {
        if (wanted.kind === 'prop') found += dead.find((d) => d.ns === a.ns && d.name === a.name)!.xml;
      } else if (wanted.kind === 'prop') missing += emptyProp(a.ns, a.name);
    }
    if (wanted.kind === 'allprop') for (const d of dead) found += d.xml;
  }
  let out = `<D:response><D:href>${escapeXml(href)}</D:href>`;
  if (found !== '' || missing === '') out += `<D:propstat><D:prop>${found}</D:prop>${OK_STATUS}</D:propstat>`;
  if (missing !== '') out += `<D:propstat><D:prop>${missing}</D:prop>${MISSING_STATUS}</D:propstat>`;
  return `${out}</D:response>`;
}
