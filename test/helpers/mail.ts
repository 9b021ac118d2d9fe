/** Reading the verification mail the daemon wrote or sent. */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** Undoes quoted-printable soft breaks and escapes, enough to read a link out of a mail. */
export function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The first `/verify?token=…` link in a raw mail. */
export function verifyLink(rawMail: string): URL | null {
  const match = /https?:\/\/[^\s"<>]+\/verify\?token=[A-Za-z0-9_-]+/.exec(decodeQuotedPrintable(rawMail));
  return match ? new URL(match[0]) : null;
}

/** The .eml files of the outbox, oldest first, as text. */
export async function readOutbox(dataDir: string): Promise<string[]> {
  const dir = path.join(dataDir, 'outbox');
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.eml')).sort();
  return Promise.all(names.map((n) => readFile(path.join(dir, n), 'utf8')));
}
