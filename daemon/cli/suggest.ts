/**
 * "Did you mean …?" for the command line: a misspelt command, subcommand or option gets one
 * line naming the closest word the command knows, instead of a page of usage (issue 29, item 10).
 */
import type { Options } from './common.js';

/**
 * Edits between two words: insertions, deletions, substitutions and swaps of two neighbours
 * (optimal string alignment). Swaps count as one because they are the commonest typing slip
 * (`deamon`, `--prot`, `--data-dri`), which plain Levenshtein would count as two.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/**
 * The known word closest to `word`, or null when none is close enough to be a slip: at most
 * one edit per four letters (at least one), or the only word that `word` begins (`--data`
 * for `--data-dir`). A far-fetched guess sends the operator the wrong way (`restart` is not
 * a slip for `restore`).
 */
export function closest(word: string, known: readonly string[]): string | null {
  const typed = word.toLowerCase();
  let best: string | null = null;
  let bestDistance = Math.max(1, Math.floor(typed.length / 4)) + 1;
  for (const candidate of known) {
    const distance = editDistance(typed, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  if (best !== null) return best;
  const begun = typed.length >= 3 ? known.filter((candidate) => candidate.startsWith(typed)) : [];
  return begun.length === 1 ? begun[0] : null;
}

/** `; did you mean X?` when a known word is close, else `fallback` (which says where the list is). */
export function didYouMean(word: string, known: readonly string[], fallback: string, format = (w: string) => w): string {
  const guess = closest(word, known);
  return guess === null ? fallback : `; did you mean ${format(guess)}?`;
}

/**
 * The first option on the line that the command does not take, as a one-line refusal with the
 * closest option it does take; null when every option is known. Run before node:util's
 * parseArgs, whose own refusal names no alternative. The value after a string option is
 * skipped, so `--email -x` or `--max-storage -1` is left to parseArgs to judge.
 */
export function unknownOption(argv: string[], options: Options, helpHint: string): string | null {
  const shorts = new Map(Object.values(options).flatMap((o) => (o.short ? [[o.short, o] as const] : [])));
  const longs = Object.keys(options);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') break; // the rest are operands
    if (!arg.startsWith('-') || arg === '-') continue;
    if (arg.startsWith('--')) {
      const [name] = arg.slice(2).split('=', 1);
      const option = Object.hasOwn(options, name) ? options[name] : undefined;
      if (option) {
        if (option.type === 'string' && !arg.includes('=')) i++;
        continue;
      }
      return `Unknown option '--${name}'${didYouMean(name, longs, helpHint, (w) => `--${w}`)}`;
    }
    // A short option, or a group of boolean ones (`-hv`); a string one takes the rest or the next word.
    const letters = arg.slice(1);
    const first = shorts.get(letters[0]);
    if (first?.type === 'string') {
      if (letters.length === 1) i++;
      continue;
    }
    if ([...letters].every((letter) => shorts.get(letter)?.type === 'boolean')) continue;
    // `-port`: a long option typed with one dash.
    return `Unknown option '${arg}'${didYouMean(letters, longs, helpHint, (w) => `--${w}`)}`;
  }
  return null;
}
