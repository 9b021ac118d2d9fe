/**
 * WebDAV's XML: request bodies read with a cap and parsed namespace-aware (@xmldom/xmldom), no
 * DOCTYPE or entity ever expanded; answers written as text, no DOM (a 10,000-entry multistatus
 * is its parts' UTF-8 bytes copied into one buffer: `multistatus`).
 */
import { DOMParser, type Document, type Element } from '@xmldom/xmldom';
import type { Context } from 'koa';
import { ApiError, badRequest } from '../../errors.js';

export const DAV_NS = 'DAV:';
/** Request bodies past this are refused (413): a lockinfo or a propfind is a few hundred bytes. */
export const MAX_XML_BODY_BYTES = 1 << 20;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
/** Text or an attribute value, escaped for XML. */
export const escapeXml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** The whole request body as text; 413 past MAX_XML_BODY_BYTES (by Content-Length before a byte is read). */
export async function readBodyText(ctx: Context): Promise<string> {
  const declared = Number(ctx.get('Content-Length') || 0);
  if (declared > MAX_XML_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_XML_BODY_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = () => new ApiError('payload_too_large', `A WebDAV request body may be at most ${MAX_XML_BODY_BYTES} bytes`);

/** Whether the request has a body to read (a length above 0, or chunked). */
export function hasBody(ctx: Context): boolean {
  const length = ctx.get('Content-Length');
  return (length !== '' && length !== '0') || ctx.get('Transfer-Encoding') !== '';
}

/** The request's XML body as a document element, or null when there is none; 400 for a DOCTYPE or anything not well-formed. */
export async function readXml(ctx: Context): Promise<Element | null> {
  if (!hasBody(ctx)) return null;
  const text = await readBodyText(ctx);
  if (text.trim() === '') return null;
  // Entities are how "billion laughs" and external-entity reads get in: no DTD at all.
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw badRequest('A WebDAV request body may not have a DOCTYPE');
  let doc: Document;
  try {
    doc = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(text, 'application/xml');
  } catch {
    throw badRequest('The request body is not well-formed XML');
  }
  const root = doc.documentElement;
  if (!root) throw badRequest('The request body is not well-formed XML');
  return root;
}

/** The element children of `el`. */
export function childElements(el: Element): Element[] {
  const out: Element[] = [];
  for (let node = el.firstChild; node; node = node.nextSibling) if (node.nodeType === 1) out.push(node as Element);
  return out;
}

/** The first child element in DAV: named `name`, or undefined. */
export const davChild = (el: Element, name: string): Element | undefined =>
  childElements(el).find((c) => c.namespaceURI === DAV_NS && c.localName === name);

/** Whether `el` is DAV:`name`. */
export const isDav = (el: Element, name: string): boolean => el.namespaceURI === DAV_NS && el.localName === name;

const MULTISTATUS_HEAD = Buffer.from('<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">');
const MULTISTATUS_TAIL = Buffer.from('</D:multistatus>');

/**
 * A multistatus document of the given <D:response> elements, as UTF-8 bytes: each part encoded
 * once (a listing's kept entries already are bytes) and copied into one buffer, never joined
 * into a string the socket would encode again.
 */
export function multistatus(responses: readonly (string | Buffer)[]): Buffer {
  const parts = [MULTISTATUS_HEAD, ...responses.map((r) => (typeof r === 'string' ? Buffer.from(r) : r)), MULTISTATUS_TAIL];
  return Buffer.concat(parts);
}

/** One <D:response> with a status for its href (a method's outcome per resource). */
export const statusResponse = (href: string, status: number): string =>
  `<D:response><D:href>${escapeXml(href)}</D:href><D:status>HTTP/1.1 ${status} ${reason(status)}</D:status></D:response>`;

const REASONS: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  412: 'Precondition Failed',
  423: 'Locked',
  424: 'Failed Dependency',
  507: 'Insufficient Storage',
};
export const reason = (status: number): string => REASONS[status] ?? 'Error';

/** Sends an XML answer (text, or its UTF-8 bytes). */
export function sendXml(ctx: Context, status: number, xml: string | Buffer): void {
  ctx.status = status;
  ctx.type = 'application/xml; charset=utf-8';
  ctx.body = xml;
}

/** An answer without a body (Koa turns a null body into 204 unless the status is set after it). */
export function answerEmpty(ctx: Context, status: number): void {
  ctx.body = null;
  ctx.status = status;
}
