/**
 * Writes the tree scenario's data (bench/lib/tree-layout.ts) under `<bench root>/tree`, once:
 * a spec.json beside it says what was built, and a later run with the same spec (BENCH_DATA)
 * reuses it. Three things:
 * - `tree/`: a data directory, the tree user's deep tree plus the small users' trees;
 * - `flat/`: a second data directory with the same users and the very same files (hard
 *   links: no second copy of the bytes), each folder path made one name (`a/b/c` → `a_b_c`),
 *   so every folder is one level deep: the baseline daemon for start-up, RSS and search;
 * - `copy-source/album`: the tree the copy row puts into the storage folder with `cp -r`.
 * The writing is synchronous (one open, write and close per file, no thread pool between).
 */
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_BADGE, emptyDb, type StoredUser } from '../../daemon/store/schema.js';
import { UNLIMITED_ROLE } from './dataset.js';
import {
  copyPlan,
  DROP,
  EMPTY,
  fileName,
  fileSize,
  flatName,
  MOVED,
  PARK_A,
  PARK_B,
  smallUserName,
  smallUserPlan,
  TREE_USER,
  treeUserPlan,
  type DirPlan,
  type TreeSpec,
} from './tree-layout.js';

/** Bump when tree-layout.ts or this file changes what is written: a cached tree of an older layout is rebuilt. */
const LAYOUT_VERSION = 1;

export interface TreeDataset {
  spec: TreeSpec;
  /** The deep tree's data directory (db.json, storage/). */
  treeDir: string;
  /** The one-level copy's data directory. */
  flatDir: string;
  /** The tree `cp -r` copies (its root folder, `album`). */
  copySource: string;
  /** Everything on disk, for the daemons' checks: files and folders of all users. */
  totals: { files: number; folders: number };
}

/** The tree data under `root`: reused when built before with this spec, built now otherwise. */
export function buildTreeDataset(root: string, spec: TreeSpec, log: (l: string) => void): { ds: TreeDataset; reused: boolean } {
  const dir = path.join(root, 'tree-data');
  const specFile = path.join(dir, 'spec.json');
  const recorded = JSON.stringify({ layout: LAYOUT_VERSION, ...spec });
  const reused = existsSync(specFile) && readFileSync(specFile, 'utf8') === recorded;
  if (!reused) {
    const building = `${dir}.building`;
    rmSync(dir, { recursive: true, force: true });
    rmSync(building, { recursive: true, force: true });
    build(building, spec, log);
    writeFileSync(path.join(building, 'spec.json'), recorded);
    // Whole or not at all: a run stopped half-way leaves only `.building`, rebuilt next time.
    renameSync(building, dir);
  }
  const ds = describe(dir, spec);
  resetTree(ds);
  return { ds, reused };
}

function describe(dir: string, spec: TreeSpec): TreeDataset {
  const plan = treeUserPlan(spec);
  const small = smallUserPlan();
  return {
    spec,
    treeDir: path.join(dir, 'tree'),
    flatDir: path.join(dir, 'flat'),
    copySource: path.join(dir, 'copy-source', 'album'),
    totals: {
      files: spec.files + spec.smallUsers * small.reduce((n, d) => n + d.count, 0),
      folders: plan.length + spec.smallUsers * small.length,
    },
  };
}

/** Puts back what an interrupted run may have left moved or copied, so every run starts from the same tree. */
export function resetTree(ds: TreeDataset): void {
  const user = path.join(ds.treeDir, 'storage', TREE_USER);
  for (const p of [MOVED, EMPTY]) {
    const away = path.join(user, PARK_B, path.basename(p));
    if (existsSync(away) && !existsSync(path.join(user, p))) renameSync(away, path.join(user, p));
  }
  for (const name of readdirSync(path.join(user, DROP))) rmSync(path.join(user, DROP, name), { recursive: true, force: true });
  const stray = readdirSync(path.join(user, PARK_B));
  if (stray.length > 0) throw new Error(`tree dataset: ${PARK_B} should be empty, it holds ${stray.join(', ')}`);
  if (!existsSync(path.join(user, PARK_A))) throw new Error(`tree dataset: ${PARK_A} is missing`);
}

function build(dir: string, spec: TreeSpec, log: (l: string) => void): void {
  const t = performance.now();
  const createdAt = new Date(Date.UTC(2024, 0, 1)).toISOString();
  const user = (username: string, role: string): StoredUser => ({
    username,
    email: `${username}@example.org`,
    role,
    emailVerified: false,
    createdAt,
    passwordHash: 'bench-not-a-real-hash',
  });
  const db = emptyDb();
  db.roles.push({ name: UNLIMITED_ROLE, maxStorage: -1, badge: DEFAULT_BADGE, builtIn: false });
  db.users.push(user(TREE_USER, UNLIMITED_ROLE));
  for (let i = 0; i < spec.smallUsers; i++) db.users.push(user(smallUserName(i, spec), 'user'));
  const treeStorage = path.join(dir, 'tree', 'storage');
  const flatStorage = path.join(dir, 'flat', 'storage');
  for (const data of [path.join(dir, 'tree'), path.join(dir, 'flat')]) {
    mkdirSync(path.join(data, 'storage'), { recursive: true });
    writeFileSync(path.join(data, 'db.json'), JSON.stringify(db));
  }
  const content = Buffer.alloc(64, 'nimbus tree bench; a few bytes per file, different sizes. ');
  const writeUser = (username: string, plans: DirPlan[]) => {
    const deep = path.join(treeStorage, username);
    const flat = path.join(flatStorage, username);
    mkdirSync(deep);
    mkdirSync(flat);
    for (const d of plans) {
      mkdirSync(path.join(deep, d.path));
      mkdirSync(path.join(flat, flatName(d.path)));
      for (let i = d.first; i < d.first + d.count; i++) {
        const name = fileName(i);
        writeFileSync(path.join(deep, d.path, name), content.subarray(0, fileSize(i)));
        linkSync(path.join(deep, d.path, name), path.join(flat, flatName(d.path), name));
      }
    }
  };
  writeUser(TREE_USER, treeUserPlan(spec));
  log(`  tree user written (${(performance.now() - t).toFixed(0)} ms)`);
  const small = smallUserPlan();
  for (let i = 0; i < spec.smallUsers; i++) writeUser(smallUserName(i, spec), small);
  const copyRoot = path.join(dir, 'copy-source');
  for (const d of copyPlan(spec)) {
    mkdirSync(path.join(copyRoot, d.path), { recursive: true });
    for (let i = d.first; i < d.first + d.count; i++)
      writeFileSync(path.join(copyRoot, d.path, fileName(i)), content.subarray(0, fileSize(i)));
  }
  log(`  tree data built in ${(performance.now() - t).toFixed(0)} ms`);
}

/** Bytes the tree data takes on disk (one 4 KiB block per file and directory; the flat copy adds only its directories). */
export function treeDiskNeeded(spec: TreeSpec): number {
  const entries = spec.files + spec.folders * 2 + spec.smallUsers * 10 + spec.copyFiles * 3;
  return entries * 4096 + 512 * 2 ** 20;
}
