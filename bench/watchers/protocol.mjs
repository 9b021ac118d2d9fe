// The line protocol of the watcher children (bench/scenarios/watchers.ts reads it):
// `READY <ms>` once every directory is watched, then one JSON line per event:
// {"t": wall-clock ms (performance.timeOrigin + now), "kind": "create" | "update" | "delete",
//  "path": absolute path, "listed": true when the child found it by listing a new directory}.
// Plain JavaScript, run by node without tsx, so each child's RSS is the watcher's and Node's only.
export const root = process.argv[2];
const started = performance.now();

export function emit(kind, path, listed = false) {
  process.stdout.write(`${JSON.stringify({ t: performance.timeOrigin + performance.now(), kind, path, listed })}\n`);
}

export function ready() {
  process.stdout.write(`READY ${(performance.now() - started).toFixed(1)}\n`);
}

process.on('SIGTERM', () => process.exit(0));
