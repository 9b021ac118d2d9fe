/**
 * The WebDAV If header (RFC 4918 §10.4), parsed; what its conditions mean for a request is the
 * dav layer's to evaluate. A pure function of the header's text.
 *
 *   If           = 1*No-tag-list | 1*Tagged-list
 *   No-tag-list  = List
 *   Tagged-list  = Resource-Tag 1*List
 *   List         = "(" 1*Condition ")"
 *   Condition    = ["Not"] (State-token | "[" entity-tag "]")
 *   State-token  = Coded-URL = "<" absolute-URI ">"
 *   Resource-Tag = "<" Simple-ref ">"
 */
import { badRequest } from '../../errors.js';

export interface IfCondition {
  not: boolean;
  /** A state token (a lock token such as `urn:uuid:…`, or `DAV:no-lock`), without its angle brackets. */
  token?: string;
  /** An entity tag as sent, quotes and any `W/` included. */
  etag?: string;
}

/** One List: its resource (a tagged list's URL; null when untagged) and conditions, all of which must hold. */
export type IfList = { resource: string | null; conditions: IfCondition[] }[];

const malformed = (why: string) => badRequest(`Malformed If header: ${why}`, 'bad_request');

/** Parses an If header; 400 `bad_request` when it does not follow the grammar. */
export function parseIf(header: string): IfList {
  const lists: IfList = [];
  let at = 0;
  let tagged: boolean | null = null;
  let resource: string | null = null;
  const skipSpace = () => {
    while (at < header.length && (header[at] === ' ' || header[at] === '\t' || header[at] === '\r' || header[at] === '\n')) at++;
  };
  /** The text up to `close` from after `at`'s opening character; at moves past `close`. */
  const enclosed = (close: string, what: string): string => {
    const end = header.indexOf(close, at + 1);
    if (end < 0) throw malformed(`unclosed ${what}`);
    const text = header.slice(at + 1, end);
    at = end + 1;
    return text;
  };
  skipSpace();
  if (at === header.length) throw malformed('it is empty');
  while (at < header.length) {
    if (header[at] === '<') {
      if (tagged === false) throw malformed('tagged and untagged lists mixed');
      tagged = true;
      resource = enclosed('>', 'resource tag');
      if (resource === '' || /\s/.test(resource)) throw malformed('a resource tag must be a URL');
      skipSpace();
      if (header[at] !== '(') throw malformed('a resource tag must be followed by a list');
    } else if (header[at] === '(') {
      if (tagged === null) tagged = false;
      at++;
      lists.push({ resource: tagged ? resource : null, conditions: parseConditions() });
    } else throw malformed(`unexpected '${header[at]}'`);
    skipSpace();
  }
  return lists;

  function parseConditions(): IfCondition[] {
    const conditions: IfCondition[] = [];
    for (;;) {
      skipSpace();
      if (header[at] === ')') {
        at++;
        if (conditions.length === 0) throw malformed('an empty list');
        return conditions;
      }
      let not = false;
      if (header.slice(at, at + 3).toLowerCase() === 'not') {
        not = true;
        at += 3;
        skipSpace();
      }
      if (header[at] === '<') {
        const token = enclosed('>', 'state token');
        if (token === '' || /\s/.test(token)) throw malformed('a state token must be a URI');
        conditions.push({ not, token });
      } else if (header[at] === '[') {
        const etag = enclosed(']', 'entity tag').trim();
        if (!/^(W\/)?"[^"]*"$/.test(etag)) throw malformed('an entity tag must be quoted');
        conditions.push({ not, etag });
      } else throw malformed(at >= header.length ? 'unclosed list' : `unexpected '${header[at]}' in a list`);
    }
  }
}
