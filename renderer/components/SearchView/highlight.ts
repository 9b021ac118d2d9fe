/**
 * Where a search text is in a name, folded the way the daemon folds both
 * (daemon/services/search.ts: NFKD, combining marks dropped, lower case), so "resume" marks
 * "Résumé" in "Résumé.pdf". Folding is done a character at a time to map the match back onto
 * the name as written; null when the folded text is not in it (the daemon's rule may find
 * what this one does not: then nothing is marked).
 */
export function matchRange(name: string, query: string): [start: number, end: number] | null {
  const needle = fold(query).text;
  if (needle.length === 0) return null;
  const { text, starts, ends } = fold(name);
  const at = text.indexOf(needle);
  if (at === -1) return null;
  return [starts[at], ends[at + needle.length - 1]];
}

interface Folded {
  text: string;
  /** For each UTF-16 unit of `text`, where its character starts in the original. */
  starts: number[];
  /** …and where it ends. */
  ends: number[];
}

function fold(original: string): Folded {
  let text = '';
  const starts: number[] = [];
  const ends: number[] = [];
  let offset = 0;
  for (const char of original) {
    const folded = char.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
    // A character that folds to nothing (a combining accent) belongs to the one before it.
    if (folded.length === 0 && ends.length > 0) ends[ends.length - 1] = offset + char.length;
    for (let i = 0; i < folded.length; i += 1) {
      starts.push(offset);
      ends.push(offset + char.length);
    }
    text += folded;
    offset += char.length;
  }
  return { text, starts, ends };
}
