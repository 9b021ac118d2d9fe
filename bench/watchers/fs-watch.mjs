// Today's watcher reduced to its watching (daemon/storage/watcher.ts before issue 11): one
// fs.watch per directory; each event's name is lstat'ed to learn what happened, and a
// directory that appears is watched and listed.
import { lstatSync, readdirSync, watch } from 'node:fs';
import path from 'node:path';
import { emit, ready, root } from './protocol.mjs';

const watchers = new Map();

function watchTree(dir, announce) {
  watchers.get(dir)?.close();
  try {
    watchers.set(
      dir,
      watch(dir, (event, name) => name && onEvent(dir, event, name)),
    );
  } catch {
    return;
  }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (announce) emit('create', p, true);
    if (entry.isDirectory()) watchTree(p, announce);
  }
}

function onEvent(dir, event, name) {
  const p = path.join(dir, name);
  let stat = null;
  try {
    stat = lstatSync(p);
  } catch {
    stat = null;
  }
  if (!stat) {
    for (const [d, w] of watchers) {
      if (d !== p && !d.startsWith(p + path.sep)) continue;
      w.close();
      watchers.delete(d);
    }
    return emit('delete', p);
  }
  emit(event === 'rename' ? 'create' : 'update', p);
  if (stat.isDirectory() && event === 'rename') watchTree(p, true);
}

watchTree(root, false);
ready();
