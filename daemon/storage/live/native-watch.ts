/** The watch the daemon's LiveStorage subscribes with, by platform. */
import { inotifyWatch } from './inotify.js';
import type { WatchFactory } from './subscription.js';

/** @parcel/watcher, the native watcher VS Code uses (chosen by measurement: bench/NOTES.md): FSEvents on macOS, ReadDirectoryChangesW on Windows. */
// Loaded when the watcher starts, after the first scan: not on the way to the API answering (~35 ms).
export const parcelWatch: WatchFactory = async (root, onEvents) => (await import('@parcel/watcher')).subscribe(root, onEvents);

/** On Linux our own inotify reader (live/inotify.ts: no threads to wake per change); elsewhere, or with NIMBUS_WATCHER=parcel, @parcel/watcher. */
export const nativeWatch: WatchFactory = (root, onEvents) => (inotifyWatch() ?? parcelWatch)(root, onEvents);
