// Nimbus's own inotify reader (daemon/storage/live/inotify.ts, compiled to dist/ by
// `npm run bench`): one subscription over the storage root. Like parcel.mjs, a directory
// reported created is listed (as Nimbus does), and what that finds is emitted with listed: true.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { inotifyWatch } from '../../dist/daemon/storage/live/inotify.js';
import { emit, ready, root } from './protocol.mjs';

async function list(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = path.join(dir, entry.name);
    emit('create', p, true);
    if (entry.isDirectory()) await list(p);
  }
}

const watch = inotifyWatch();
if (!watch) throw new Error('inotify is not available here (Linux and koffi are needed)');
await watch(root, (err, events) => {
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
// Its reads do not keep a process alive (the daemon's server does): this child stays until told to stop.
setInterval(() => undefined, 1 << 30);
ready();
