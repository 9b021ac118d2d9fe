// chokidar 6: one watcher over the storage root, default options except ignoreInitial.
import { watch } from 'chokidar';
import { emit, ready, root } from './protocol.mjs';

const KIND = { add: 'create', addDir: 'create', change: 'update', unlink: 'delete', unlinkDir: 'delete' };
const watcher = watch(root, { ignoreInitial: true });
watcher.on('all', (event, p) => KIND[event] && emit(KIND[event], p));
watcher.on('ready', ready);
watcher.on('error', (err) => process.stderr.write(`${err.stack}\n`));
