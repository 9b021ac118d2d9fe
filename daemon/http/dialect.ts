/**
 * Response dialects. A key's dialect (identify() in services/keys.ts) decides the shapes of
 * the bodies it gets: `nimbus` keeps Nimbus's records; `daneecloud` gets the bodies DaneeCloud
 * sent, for the clients written against it (its bot reads `usedStorage`, `isVerified`, lists
 * of names and a dash of display strings). Applied once, to a handler's result, by endpoint
 * id; endpoints not named here answer the same in both dialects, and so do errors
 * (`{error, code}`, as DaneeCloud's `{error}`).
 */
import os from 'node:os';
import type { EndpointId } from '../../shared/endpoints.js';
import type { Dialect, FileEntry, Folder, User } from '../../shared/types.js';
import type { NimbusContext } from '../context.js';
import { JsonBytes } from '../util/json-bytes.js';
import { VERSION } from '../version.js';

const MIB = 1024 * 1024;

/** A user as DaneeCloud's `users` model answered it (without its password hash, verify code and IP). */
export interface DaneeCloudUser {
  username: string;
  email: string;
  /** Used storage in MB (MiB, as role quotas), two decimals. */
  usedStorage: number;
  isVerified: boolean;
  /** Names of the files at the user's root. */
  files: string[];
  /** Names of the user's folders. */
  folders: string[];
  /** Names of the user's shared files; `folder/file` for one inside a folder. */
  sharedFiles: string[];
  /** The role's name. */
  role: string;
  createdAt: string;
}

/** GET /api/dash as DaneeCloud formatted it: display strings, not numbers. */
export interface DaneeCloudDash {
  /** Machine CPU use since the previous call, e.g. "12.34 %". */
  cpuUsage: string;
  /** The daemon's resident memory, e.g. "120 MB". */
  ramUsage: string;
  /** e.g. "5 minutes", "2 hours", "3 days" (the `ms` package's long form, as DaneeCloud used). */
  uptime: string;
  /** e.g. "v0.1.0". */
  version: string;
  developer: string;
  license: string;
}

/** The body `dialect` gets for `endpoint`, given what its handler returned. */
export function applyDialect(nimbus: NimbusContext, dialect: Dialect, endpoint: EndpointId, body: unknown): unknown {
  if (dialect === 'nimbus' || body === undefined) return body;
  switch (endpoint) {
    case 'user.get':
      return daneeCloudUsers(nimbus, [body as User])[0];
    case 'user.all':
      return daneeCloudUsers(nimbus, body as User[]);
    case 'user.create':
    case 'user.edit':
    case 'user.role': {
      const { user, ...rest } = body as { user: User };
      return { ...rest, user: daneeCloudUsers(nimbus, [user])[0] };
    }
    case 'folders.list':
      return { folders: (body as { folders: Folder[] }).folders.map((f) => f.name) };
    case 'files.list':
    case 'folders.files': {
      // The handler answers the pre-serialised JSON of {files: FileEntry[]}.
      const parsed = (body instanceof JsonBytes ? body.parse() : body) as { files: FileEntry[] };
      return { files: parsed.files.map((f) => f.name) };
    }
    case 'dash.get':
      return daneeCloudDash(nimbus);
    case 'files.delete':
    case 'folders.files.delete':
    case 'folders.delete':
      // DaneeCloud answered a delete with {msg}; the trash item's id is Nimbus's own (for an Undo).
      return { msg: (body as { msg: string }).msg };
    default:
      return body;
  }
}

function daneeCloudUsers(nimbus: NimbusContext, users: User[]): DaneeCloudUser[] {
  const shared = new Map<string, string[]>();
  for (const share of nimbus.store.sharesByToken.values()) {
    // DaneeCloud shared files only: a folder's links are not in its lists.
    if (share.kind) continue;
    let names = shared.get(share.username);
    if (!names) shared.set(share.username, (names = []));
    names.push(share.folder === null ? share.file : `${share.folder}/${share.file}`);
  }
  return users.map((u) => {
    const node = nimbus.index.user(u.username);
    return {
      username: u.username,
      email: u.email,
      usedStorage: Math.round((u.usage.usedBytes / MIB) * 100) / 100,
      isVerified: u.emailVerified,
      files: node ? [...nimbus.index.sortedNames(node.root)] : [],
      folders: node ? [...node.folders.keys()].sort() : [],
      sharedFiles: (shared.get(u.username) ?? []).sort(),
      role: u.role,
      createdAt: u.createdAt,
    };
  });
}

let lastCpu: { idle: number; total: number } | null = null;

/** The machine's CPU use since the previous call (since boot on the first), in percent, two decimals. */
function cpuPercent(): number {
  const cpus = os.cpus();
  if (cpus.length === 0) {
    // Some containers hide /proc/stat: the one-minute load average per core is the next best.
    const load = (os.loadavg()[0] / Math.max(1, os.availableParallelism())) * 100;
    return Number.isFinite(load) ? Math.round(Math.min(100, load) * 100) / 100 : 0;
  }
  let idle = 0;
  let total = 0;
  for (const cpu of cpus) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  const prev = lastCpu;
  lastCpu = { idle, total };
  const dTotal = prev ? total - prev.total : total;
  const dIdle = prev ? idle - prev.idle : idle;
  if (!(dTotal > 0)) return 0;
  const busy = (1 - dIdle / dTotal) * 100;
  return Number.isFinite(busy) ? Math.round(Math.max(0, Math.min(100, busy)) * 100) / 100 : 0;
}

function daneeCloudDash(nimbus: NimbusContext): DaneeCloudDash {
  return {
    cpuUsage: `${cpuPercent()} %`,
    ramUsage: `${Math.round(process.memoryUsage().rss / MIB)} MB`,
    uptime: longDuration(Math.floor((Date.now() - nimbus.startedAt) / 1000) * 1000),
    version: `v${VERSION}`,
    developer: 'Nimbus',
    license: 'MIT',
  };
}

/** A duration in the long form of the `ms` package (`ms(x, {long: true})`), which DaneeCloud's dash used. */
export function longDuration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, name] of units) {
    if (ms >= size) return `${Math.round(ms / size)} ${name}${ms >= size * 1.5 ? 's' : ''}`;
  }
  return `${ms} ms`;
}
