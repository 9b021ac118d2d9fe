// @parcel/watcher: one subscription over the storage root. Its events are emitted as they
// come; besides, a directory it reports created is listed (as Nimbus does), and what that
// finds is emitted with listed: true, so the parent can count both.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { subscribe } from '@parcel/watcher';
import { emit, ready, root } from './protocol.mjs';

async function list(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, entry.name);
    emit('create', p, true);
    if (entry.isDirectory()) await list(p);
  }
}

await subscribe(root, (err, events) => {
  if (err) process.stderr.write(`${err.stack}\n`);
  for (const e of events ?? []) {
    emit(e.type, e.path);
    if (e.type === 'create')
      void stat(e.path).then(
        (s) => s.isDirectory() && list(e.path),
        () => undefined,
      );
  }
});
ready();
