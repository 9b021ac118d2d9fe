/**
 * Items that wait a fixed grace before they are handled, in the order they came: one timer
 * for all of them (an `rm -r` of a large folder is one pass), armed only while some wait,
 * never keeping the process alive. The shares' and WebDAV properties' watchers of removals
 * use it: a name gone for less than the grace may only be an editor saving anew.
 */
export function graceQueue<T>(graceMs: number, handle: (due: T[]) => void): (item: T) => void {
  const pending: { item: T; due: number }[] = [];
  let timer: NodeJS.Timeout | null = null;
  const schedule = () => {
    if (timer || pending.length === 0) return;
    timer = setTimeout(flush, Math.max(0, pending[0].due - Date.now()));
    timer.unref();
  };
  const flush = () => {
    timer = null;
    const now = Date.now();
    let due = 0;
    while (due < pending.length && pending[due].due <= now) due++;
    handle(pending.splice(0, due).map((p) => p.item));
    schedule();
  };
  return (item) => {
    pending.push({ item, due: Date.now() + graceMs });
    schedule();
  };
}
