/**
 * The command that runs the daemon CLI in a child process: bin/nimbus.js, which runs the
 * compiled dist/ when it is up to date with the sources, and the sources through tsx when not.
 */
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** argv (after the node binary) that runs `nimbus <args>`. */
export const daemonCommand = (args: string[]): string[] => [path.join(root, 'bin/nimbus.js'), ...args];
