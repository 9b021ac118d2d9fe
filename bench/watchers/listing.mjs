// What parcel.mjs and nimbus.mjs do with a subscription's batches, as Nimbus does: emit each
// event, and list a directory reported created, emitting what that finds with listed: true.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { emit } from './protocol.mjs';

async function list(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, entry.name);
    emit('create', p, true);
    if (entry.isDirectory()) await list(p);
  }
}

/** A subscription's callback: `(err, events)`, events of `{type, path}`. */
export function emitAndList(err, events) {
  if (err) process.stderr.write(`${err.stack}\n`);
  for (const e of events ?? []) {
    emit(e.type, e.path);
    if (e.type === 'create')
      void stat(e.path).then(
        (s) => s.isDirectory() && list(e.path),
        () => undefined,
      );
  }
}
