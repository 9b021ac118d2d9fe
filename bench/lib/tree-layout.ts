/**
 * The shape of the tree scenario's data (issue 25), as plain lists: which directories exist
 * and which files each holds, derived from one number (BENCH_TREE_FILES) so that the same
 * number always gives the same tree. bench/lib/tree-dataset.ts writes it to disk.
 *
 * The tree user's files (all `files` of them) sit in `folders` folders:
 * - `d01/…/d10` (depth 10) holds `deepFiles` files, with `d11/d12` below it (depth 12);
 * - `top` (depth 1) holds the same number of files under the same names: the listing row's
 *   one-level baseline in the same daemon;
 * - `park-a/moved` holds `movedFiles` files in `movedFolders` folders, the subtree the move
 *   row moves to `park-b` and back; `park-a/empty` is the empty folder it moves for comparison;
 * - `drop` is empty: the copy row's `cp -r` lands there;
 * - `rest` holds every other file and folder, three children a folder, down to depth 12.
 * Every other user has a small tree: `docs` and `docs/2024`, two files each.
 */

export interface TreeSpec {
  /** Files of the tree user. */
  files: number;
  /** Folders of the tree user (at every depth). */
  folders: number;
  /** Users besides the tree user, each with a small tree. */
  smallUsers: number;
  /** Files of the folder at depth 10 (and of `top`). */
  deepFiles: number;
  movedFiles: number;
  movedFolders: number;
  /** The tree `cp -r` copies in. */
  copyFiles: number;
  copyFolders: number;
}

export function treeSpecFor(files: number): TreeSpec {
  const part = (divisor: number, min: number) => Math.max(min, Math.round(files / divisor));
  return {
    files,
    folders: part(10, 200),
    smallUsers: part(100, 20),
    deepFiles: part(100, 100),
    movedFiles: part(10, 200),
    movedFolders: part(100, 20),
    copyFiles: part(100, 100),
    copyFolders: part(1000, 10),
  };
}

export const TREE_USER = 'tree';
export const MAX_DEPTH = 12;
export const DEEP_FOLDER = Array.from({ length: 10 }, (_, i) => `d${String(i + 1).padStart(2, '0')}`).join('/');
export const TOP_FOLDER = 'top';
export const MOVED = 'park-a/moved';
export const EMPTY = 'park-a/empty';
export const PARK_A = 'park-a';
export const PARK_B = 'park-b';
export const DROP = 'drop';
export const COPY_ROOT = 'album';
export const SMALL_FOLDERS = ['docs', 'docs/2024'];
export const SMALL_FILES_PER_FOLDER = 2;

/** One directory of the layout: its path under the user and its files' names (a range of indexes). */
export interface DirPlan {
  path: string;
  /** Index of its first file (names are `file-<index>.<ext>`) and how many. */
  first: number;
  count: number;
}

const EXTENSIONS = ['jpg', 'txt', 'pdf', 'md', 'png', 'docx', 'mp3', 'json'];
export const fileName = (index: number): string => `file-${String(index).padStart(7, '0')}.${EXTENSIONS[index % EXTENSIONS.length]}`;
/** A few bytes, different per file (the totals then mean something), the same on every build. */
export const fileSize = (index: number): number => 1 + ((index * 37) % 61);

/**
 * `count` folders below `root` (root itself first), breadth-first, `fanout` children each,
 * never deeper than MAX_DEPTH from the user's root; parents always come before children.
 */
export function breadthFirst(root: string, count: number, fanout: number): string[] {
  const out = [root];
  for (let i = 0; out.length < count; i++) {
    if (i >= out.length) throw new Error(`layout: cannot place ${count} folders below ${root} within ${MAX_DEPTH} levels`);
    const parent = out[i];
    if (parent.split('/').length >= MAX_DEPTH) continue;
    for (let c = 0; c < fanout && out.length < count; c++) out.push(`${parent}/g${c}`);
  }
  return out;
}

/** `files` files spread over `dirs` as evenly as the numbers allow, indexes from `first`. */
function spread(dirs: string[], files: number, first: number): DirPlan[] {
  let next = first;
  return dirs.map((p, j) => {
    const count = Math.floor(files / dirs.length) + (j < files % dirs.length ? 1 : 0);
    const plan = { path: p, first: next, count };
    next += count;
    return plan;
  });
}

/** The tree user's directories, parents first; file counts add up to spec.files, folders to spec.folders. */
export function treeUserPlan(spec: TreeSpec): DirPlan[] {
  const chain = DEEP_FOLDER.split('/').concat(['d11', 'd12']);
  const plans: DirPlan[] = [];
  let next = 0;
  for (let depth = 1; depth <= chain.length; depth++) {
    const count = depth === 10 ? spec.deepFiles : depth > 10 ? 1 : 0;
    plans.push({ path: chain.slice(0, depth).join('/'), first: next, count });
    next += count;
  }
  // `top`: the deep folder's own names, one level down.
  plans.push({ path: TOP_FOLDER, first: plans[9].first, count: spec.deepFiles });
  plans.push({ path: PARK_A, first: 0, count: 0 }, { path: PARK_B, first: 0, count: 0 }, { path: EMPTY, first: 0, count: 0 });
  plans.push({ path: DROP, first: 0, count: 0 });
  const moved = spread(breadthFirst(MOVED, spec.movedFolders, 10), spec.movedFiles, next);
  plans.push(...moved);
  next += spec.movedFiles;
  const restFolders = spec.folders - plans.length;
  // `top` repeats the deep folder's names, so the indexes so far count every file but top's.
  const restFiles = spec.files - next - spec.deepFiles;
  if (restFolders < 1 || restFiles < 0) throw new Error(`layout: ${spec.files} files are too few for the tree's fixed parts`);
  plans.push(...spread(breadthFirst('rest', restFolders, 3), restFiles, next));
  return plans;
}

/** Every other user's small tree. */
export function smallUserPlan(): DirPlan[] {
  return SMALL_FOLDERS.map((p, i) => ({ path: p, first: i * SMALL_FILES_PER_FOLDER, count: SMALL_FILES_PER_FOLDER }));
}

/** The tree `cp -r` copies into `drop`, below one folder named COPY_ROOT. */
export function copyPlan(spec: TreeSpec): DirPlan[] {
  return spread(breadthFirst(COPY_ROOT, spec.copyFolders, 3), spec.copyFiles, 0);
}

export const smallUserName = (i: number, spec: TreeSpec): string => `t${String(i).padStart(String(spec.smallUsers).length, '0')}`;

/** A folder path as one name, for the flat copy: `a/b/c` → `a_b_c` (the layout's names hold no `_`). */
export const flatName = (p: string): string => p.replace(/\//g, '_');
