/**
 * Which stored copy of a web UI file to send (docs/explorer.md, "How the UI is served"): the
 * build writes a brotli (`.br`) and a gzip (`.gz`) copy beside each text file
 * (build/ui-assets.mjs); a client that accepts one gets it with `Content-Encoding`, any other the
 * file itself. Nothing is compressed per request and nothing is kept in memory: each request
 * looks at the folder as it is, so a rebuilt UI is served at once.
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';

export type Coding = 'br' | 'gzip';

/** What one answer sends: the file read (the original or a copy), its stat, its content coding. */
export interface Variant {
  file: string;
  info: Stats;
  coding: Coding | null;
}

const SUFFIX: Record<Coding, string> = { br: '.br', gzip: '.gz' };

/** Ours, smallest first: a tie in the client's weights goes to brotli. */
const PREFERENCE: Coding[] = ['br', 'gzip'];

/**
 * The codings `header` (Accept-Encoding, RFC 9110 §12.5.3) accepts, most wanted first: by the
 * client's weight, then ours. `*` stands for any coding it does not name; `q=0` refuses one. No
 * header is no coding at all (the file as it is), which every client can read.
 */
export function acceptedCodings(header: string | undefined): Coding[] {
  if (!header) return [];
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [token, ...params] = part.toLowerCase().split(';');
    const name = token.trim() === 'x-gzip' ? 'gzip' : token.trim();
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    if (name && !Number.isNaN(weight)) weights.set(name, weight);
  }
  const weightOf = (coding: Coding) => weights.get(coding) ?? weights.get('*') ?? 0;
  return PREFERENCE.filter((coding) => weightOf(coding) > 0).sort((a, b) => weightOf(b) - weightOf(a));
}

/**
 * The copy to send of `file` (whose stat is `info`) for a client accepting `accepted`: the first
 * such copy that exists and is not older than the file, else the file. An older copy is one a
 * build without the compression step left behind; it never stands for the new file.
 */
export async function chooseVariant(file: string, info: Stats, accepted: Coding[]): Promise<Variant> {
  for (const coding of accepted) {
    const copy = `${file}${SUFFIX[coding]}`;
    const copyInfo = await stat(copy).catch(() => null);
    if (copyInfo?.isFile() && copyInfo.mtimeMs >= info.mtimeMs) return { file: copy, info: copyInfo, coding };
  }
  return { file, info, coding: null };
}

/** Whether a request names a build's by-product rather than a file of the UI: a copy or a source map. */
export const isByProduct = (relative: string): boolean => /\.(?:br|gz|map)$/i.test(relative);
