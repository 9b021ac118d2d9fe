// Nimbus's own inotify reader (daemon/storage/live/inotify.ts, compiled to dist/ by
// `npm run bench`): one subscription over the storage root. Like parcel.mjs, a directory
// reported created is listed (as Nimbus does), and what that finds is emitted with listed: true.
import { inotifyWatch } from '../../dist/daemon/storage/live/inotify.js';
import { emitAndList } from './listing.mjs';
import { ready, root } from './protocol.mjs';

const watch = inotifyWatch();
if (!watch) throw new Error('inotify is not available here (Linux and koffi are needed)');
await watch(root, emitAndList);
// Its reads do not keep a process alive (the daemon's server does): this child stays until told to stop.
setInterval(() => undefined, 1 << 30);
ready();
