const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whole days until an item is deleted for good, rounded up (23 hours left is "1 day"), never
 * below 0; null for a date that does not parse.
 */
export function daysLeft(purgeAt: string, now: number = Date.now()): number | null {
  const at = Date.parse(purgeAt);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / DAY_MS));
}
