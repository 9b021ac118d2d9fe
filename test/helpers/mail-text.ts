/**
 * Reads a raw mail as a person's mail program shows it: the subject with its encoded words
 * decoded, and the text and HTML parts decoded from quoted-printable or base64 into UTF-8
 * (test/helpers/mail.ts reads only a link, which survives without any of that).
 */

export interface ReadMail {
  /** Header names in lower case, folded lines joined, encoded words decoded. */
  headers: Map<string, string>;
  subject: string;
  text: string;
  html: string;
}

/** `=?UTF-8?Q?…?=` and `=?UTF-8?B?…?=` words, the blanks between two of them dropped (RFC 2047). */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_, kind: string, data: string) =>
      kind.toLowerCase() === 'b' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuoted(data.replace(/_/g, ' ')).toString('utf8'),
    );
}

/** Quoted-printable to bytes (soft line breaks removed), so a multi-byte letter comes back whole. */
function decodeQuoted(text: string): Buffer {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = joined[i] === '=' ? /^[0-9A-F]{2}$/i.exec(joined.slice(i + 1, i + 3)) : null;
    if (hex) {
      bytes.push(parseInt(hex[0], 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i], 'utf8'));
  }
  return Buffer.from(bytes);
}

function splitHead(raw: string): { headers: Map<string, string>; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, at).replace(/\r?\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim()));
  }
  return { headers, body: raw.slice(at).replace(/^\r?\n\r?\n/, '') };
}

function decodeBody(headers: Map<string, string>, body: string): string {
  const encoding = headers.get('content-transfer-encoding')?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuoted(body).toString('utf8');
  return body;
}

/** A mail's subject, headers and (for multipart/alternative or a single part) its text and HTML. */
export function readMail(raw: string): ReadMail {
  const { headers, body } = splitHead(raw);
  const parts: { type: string; content: string }[] = [];
  const boundary = /boundary="?([^";]+)"?/.exec(headers.get('content-type') ?? '')?.[1];
  if (boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const part = splitHead(chunk.replace(/^\r?\n/, ''));
      parts.push({ type: part.headers.get('content-type') ?? '', content: decodeBody(part.headers, part.body) });
    }
  } else parts.push({ type: headers.get('content-type') ?? '', content: decodeBody(headers, body) });
  const of = (type: string) => parts.find((p) => p.type.startsWith(type))?.content ?? '';
  return { headers, subject: headers.get('subject') ?? '', text: of('text/plain'), html: of('text/html') };
}
