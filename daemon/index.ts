/** The daemon's public entry: what main/ and tests may import. */
export type { DaemonOptions, RunningDaemon } from './daemon-types.js';
export type { Routing } from './http/app.js';
export type { Logger, LogLevel } from './logging.js';
export type { WatchFactory } from './storage/watcher.js';
export { startDaemon } from './daemon.js';
