/**
 * PROPPATCH (RFC 4918 §9.2): sets and removals in document order, all or nothing, through
 * dav-state's dead-property service. DAV: properties are live and protected here: each is 403
 * cannot-modify-protected-property, and then nothing changes (the others 424 Failed
 * Dependency). 207 with each property's status.
 */
import { XMLSerializer, type Element } from '@xmldom/xmldom';
import type { Context } from 'koa';
import type { NimbusContext } from '../../context.js';
import { badRequest } from '../../errors.js';
import { davNotFound } from './propfind.js';
import { hrefOf, resourceAt, type DavPath } from './paths.js';
import { patchDeadProps, type DeadProp } from './state.js';
import { childElements, DAV_NS, escapeXml, isDav, multistatus, readXml, reason, sendXml } from './xml.js';

interface Change {
  op: 'set' | 'remove';
  ns: string;
  name: string;
  xml: string;
}

export async function proppatch(ctx: Context, nimbus: NimbusContext, at: DavPath): Promise<void> {
  const resource = resourceAt(nimbus, at);
  if (resource.kind === 'none') throw davNotFound();
  const root = await readXml(ctx);
  if (root === null || !isDav(root, 'propertyupdate')) throw badRequest('A PROPPATCH body is a DAV:propertyupdate element');
  const changes = readChanges(root);
  const protectedOnes = changes.filter((c) => c.ns === DAV_NS);
  const statusOf = new Map<Change, number>();
  if (protectedOnes.length > 0) for (const c of changes) statusOf.set(c, c.ns === DAV_NS ? 403 : 424);
  else {
    const { set, remove } = netChanges(changes);
    await patchDeadProps(nimbus, at.username, at.path, set, remove);
    for (const c of changes) statusOf.set(c, 200);
  }
  const href = hrefOf(at.username, at.path, resource.kind === 'folder');
  const propstats = changes
    .map((c) => {
      const status = statusOf.get(c)!;
      const condition = status === 403 ? '<D:error><D:cannot-modify-protected-property/></D:error>' : '';
      return `<D:propstat><D:prop>${emptyElement(c)}</D:prop><D:status>HTTP/1.1 ${status} ${reason(status)}</D:status>${condition}</D:propstat>`;
    })
    .join('');
  sendXml(ctx, 207, multistatus([`<D:response><D:href>${escapeXml(href)}</D:href>${propstats}</D:response>`]));
}

/**
 * What the changes come to, in document order (§9.2: a remove then a set of one property leaves
 * it set, a set then a remove leaves it gone): each property's last change, so the service's
 * own order of sets and removals cannot change the outcome.
 */
function netChanges(changes: Change[]): { set: DeadProp[]; remove: { ns: string; name: string }[] } {
  const last = new Map<string, Change>();
  for (const c of changes) {
    const key = `${c.ns}\0${c.name}`;
    last.delete(key);
    last.set(key, c);
  }
  const final = [...last.values()];
  return {
    set: final.filter((c) => c.op === 'set').map(({ ns, name, xml }) => ({ ns, name, xml })),
    remove: final.filter((c) => c.op === 'remove').map(({ ns, name }) => ({ ns, name })),
  };
}

function readChanges(root: Element): Change[] {
  const serializer = new XMLSerializer();
  const changes: Change[] = [];
  for (const part of childElements(root)) {
    const op = isDav(part, 'set') ? 'set' : isDav(part, 'remove') ? 'remove' : null;
    if (op === null) continue;
    for (const prop of childElements(part).filter((c) => isDav(c, 'prop')))
      for (const el of childElements(prop))
        changes.push({
          op,
          ns: el.namespaceURI ?? '',
          name: el.localName ?? el.nodeName,
          xml: op === 'set' ? serializer.serializeToString(el) : '',
        });
  }
  if (changes.length === 0) throw badRequest('A propertyupdate sets or removes at least one property');
  return changes;
}

const emptyElement = (c: Change): string =>
  c.ns === DAV_NS ? `<D:${c.name}/>` : c.ns === '' ? `<${c.name} xmlns=""/>` : `<X:${c.name} xmlns:X="${escapeXml(c.ns)}"/>`;
