/**
 * Builds the bench's data directory on disk before the daemon starts, the way a library
 * that grew over years would look: db.json with 10,000 users, one user holding 100,000
 * files in 1,000 folders (one of them 10,000 files), and a 1 GiB file. Everything scales
 * with BENCH_SCALE for quick trial runs.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_BADGE, emptyDb, type DbData, type StoredUser } from '../../daemon/store/schema.js';

export interface DatasetSpec {
  users: number;
  files: number;
  folders: number;
  /** Files in the one large folder (part of `files`). */
  bigFolderFiles: number;
  bigFileBytes: number;
  /** Users whose role the store row changes. */
  roleUsers: number;
}

export function specFor(scale: number): DatasetSpec {
  const n = (full: number, min: number) => Math.max(min, Math.round(full * scale));
  return {
    users: n(10_000, 20),
    files: n(100_000, 200),
    folders: n(1_000, 4),
    bigFolderFiles: n(10_000, 100),
    bigFileBytes: n(1024, 8) * 2 ** 20,
    roleUsers: n(1_000, 10),
  };
}

/** Names the scenarios use. */
export const BIG_USER = 'big';
export const MEDIA_USER = 'media';
export const UPLOAD_USER = 'uploader';
export const WATCH_USER = 'watch';
export const WATCH_FOLDER = 'inbox';
export const BIG_FILE = 'movie.bin';
export const UNLIMITED_ROLE = 'unlimited';

export interface Dataset {
  spec: DatasetSpec;
  dataDir: string;
  storageDir: string;
  /** The folder of `big` holding `bigFolderFiles` files. */
  bigFolder: string;
  /** Users for the role row, all without files. */
  roleUsers: string[];
  /** Absolute path of the 1 GiB file (inside media's storage). */
  bigFilePath: string;
}

const EXTENSIONS = ['jpg', 'txt', 'pdf', 'md', 'png', 'docx', 'mp3', 'json'];

/** The dataset under `root`: built now, or reused when an earlier run with the same spec left it there. */
export async function buildDataset(root: string, spec: DatasetSpec): Promise<{ ds: Dataset; reused: boolean }> {
  const specFile = path.join(root, 'spec.json');
  const reused = existsSync(specFile) && readFileSync(specFile, 'utf8') === JSON.stringify(spec);
  const ds = reused ? describe(root, spec) : await build(root, spec);
  writeFileSync(specFile, JSON.stringify(spec));
  return { ds, reused };
}

const folderNameOf = (spec: DatasetSpec) => {
  const width = String(spec.folders).length;
  return (i: number) => `f${String(i).padStart(width, '0')}`;
};

const SPECIAL_USERS = [BIG_USER, MEDIA_USER, UPLOAD_USER, WATCH_USER];

function describe(root: string, spec: DatasetSpec): Dataset {
  const dataDir = path.join(root, 'data');
  const storageDir = path.join(dataDir, 'storage');
  const width = String(spec.users).length;
  const roleUsers: string[] = [];
  for (let i = SPECIAL_USERS.length; i < SPECIAL_USERS.length + spec.roleUsers; i++) roleUsers.push(`u${String(i).padStart(width, '0')}`);
  return {
    spec,
    dataDir,
    storageDir,
    bigFolder: folderNameOf(spec)(0),
    roleUsers,
    bigFilePath: path.join(storageDir, MEDIA_USER, BIG_FILE),
  };
}

async function build(root: string, spec: DatasetSpec): Promise<Dataset> {
  const dataDir = path.join(root, 'data');
  const storageDir = path.join(dataDir, 'storage');
  mkdirSync(storageDir, { recursive: true });
  const db: DbData = emptyDb();
  db.roles.push({ name: UNLIMITED_ROLE, maxStorage: -1, badge: DEFAULT_BADGE, builtIn: false });
  const createdAt = new Date(Date.UTC(2024, 0, 1)).toISOString();
  const user = (username: string, role = 'user'): StoredUser => ({
    username,
    email: `${username}@example.org`,
    role,
    emailVerified: false,
    createdAt,
    passwordHash: 'bench-not-a-real-hash',
  });
  const special = [user(BIG_USER, UNLIMITED_ROLE), user(MEDIA_USER, UNLIMITED_ROLE), user(UPLOAD_USER, UNLIMITED_ROLE), user(WATCH_USER)];
  if (special.map((u) => u.username).join() !== SPECIAL_USERS.join()) throw new Error('dataset: special users out of order');
  db.users.push(...special);
  const width = String(spec.users).length;
  for (let i = special.length; i < spec.users; i++) db.users.push(user(`u${String(i).padStart(width, '0')}`));
  for (const u of db.users) mkdirSync(path.join(storageDir, u.username), { recursive: true });
  writeFileSync(path.join(dataDir, 'db.json'), JSON.stringify(db));

  // big: `files` files in `folders` folders, the first folder holding `bigFolderFiles`.
  const content = randomBytes(4096);
  const folderName = folderNameOf(spec);
  const rest = spec.files - spec.bigFolderFiles;
  const jobs: [file: string, size: number][] = [];
  for (let f = 0; f < spec.folders; f++) {
    const count = f === 0 ? spec.bigFolderFiles : Math.floor(rest / (spec.folders - 1)) + (f - 1 < rest % (spec.folders - 1) ? 1 : 0);
    const dir = path.join(storageDir, BIG_USER, folderName(f));
    mkdirSync(dir);
    for (let i = 0; i < count; i++) {
      const name = `file-${String(i).padStart(5, '0')}.${EXTENSIONS[i % EXTENSIONS.length]}`;
      jobs.push([path.join(dir, name), 200 + ((jobs.length * 37) % 3800)]);
    }
  }
  if (jobs.length !== spec.files) throw new Error(`dataset: planned ${jobs.length} files, expected ${spec.files}`);
  // Many writes in flight keep the thread pool and the disk busy (sequential writes took 75 s on a loaded machine).
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const [file, size] = jobs[next++];
      await writeFile(file, content.subarray(0, size));
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  mkdirSync(path.join(storageDir, WATCH_USER, WATCH_FOLDER));

  const bigFilePath = path.join(storageDir, MEDIA_USER, BIG_FILE);
  writeBigFile(bigFilePath, spec.bigFileBytes);
  return {
    spec,
    dataDir,
    storageDir,
    bigFolder: folderName(0),
    roleUsers: db.users.slice(special.length, special.length + spec.roleUsers).map((u) => u.username),
    bigFilePath,
  };
}

/** Incompressible bytes, 4 MiB of random data repeated. */
function writeBigFile(file: string, bytes: number): void {
  const block = randomBytes(4 * 2 ** 20);
  const fd = openSync(file, 'w');
  try {
    for (let done = 0; done < bytes;) {
      const n = Math.min(block.length, bytes - done);
      done += writeSync(fd, block, 0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/** Bytes the run needs on disk: the dataset, an upload and a cp copy of the big file, margin. */
export function diskNeeded(spec: DatasetSpec): number {
  return spec.bigFileBytes * 3 + spec.files * 8192 + spec.users * 4096 + 512 * 2 ** 20;
}
