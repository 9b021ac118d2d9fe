/**
 * What a drop or the folder picker hands over, as one shape: every file with its path relative
 * to the drop (`trip/day 1/a.jpg`) and every directory (`trip`, `trip/day 1`), empty ones too.
 * A drop is read through the File System entries of its items (recursively, since a directory
 * entry lists its children in batches); the picker's files carry `webkitRelativePath`.
 */

export interface TreeFile {
  /** Path relative to the drop, names separated by `/`; the last is the file's name. */
  path: string;
  file: File;
}

export interface DroppedTree {
  files: TreeFile[];
  /** Every directory's relative path, parents before their children. */
  folders: string[];
}

/**
 * The entries of a drop's items. It must run inside the drop event: the items are emptied once
 * the event returns, so the (asynchronous) walk starts from what this takes.
 */
export function entriesOfDrop(transfer: DataTransfer): FileSystemEntry[] {
  const entries: FileSystemEntry[] = [];
  // Where the browser gives no items or no entries (jsdom, an old engine), the drop is plain files.
  for (const item of Array.from(transfer.items ?? [])) {
    if (item.kind !== 'file' || typeof item.webkitGetAsEntry !== 'function') continue;
    const entry = item.webkitGetAsEntry();
    if (entry) entries.push(entry);
  }
  return entries;
}

/** Whether a drop holds a directory (else it is plain files, uploaded as before). */
export const holdsDirectory = (entries: readonly FileSystemEntry[]): boolean => entries.some((entry) => entry.isDirectory);

/** Reads every file and directory below the dropped entries, depth first, parents first. */
export async function readDroppedTree(entries: readonly FileSystemEntry[]): Promise<DroppedTree> {
  const tree: DroppedTree = { files: [], folders: [] };
  for (const entry of entries) await readEntry(entry, '', tree);
  return tree;
}

async function readEntry(entry: FileSystemEntry, parent: string, tree: DroppedTree): Promise<void> {
  const path = parent === '' ? entry.name : `${parent}/${entry.name}`;
  if (isFileEntry(entry)) {
    tree.files.push({ path, file: await fileOf(entry) });
  } else if (isDirectoryEntry(entry)) {
    tree.folders.push(path);
    for (const child of await childrenOf(entry)) await readEntry(child, path, tree);
  }
}

const isFileEntry = (entry: FileSystemEntry): entry is FileSystemFileEntry => entry.isFile;
const isDirectoryEntry = (entry: FileSystemEntry): entry is FileSystemDirectoryEntry => entry.isDirectory;

const fileOf = (entry: FileSystemFileEntry) => new Promise<File>((resolve, reject) => entry.file(resolve, reject));

/** All of a directory's children: readEntries answers a batch at a time (100 in Chromium) until an empty one. */
async function childrenOf(directory: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = directory.createReader();
  const children: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return children;
    children.push(...batch);
  }
}

/**
 * The tree of files chosen with `<input webkitdirectory>`: each carries its path below the
 * chosen folder's parent (`trip/day 1/a.jpg`). The picker gives no empty directories, so only
 * the ones on a file's path are made.
 */
export function treeOfPickedFiles(files: readonly File[]): DroppedTree {
  const folders = new Set<string>();
  const tree: DroppedTree = { files: [], folders: [] };
  for (const file of files) {
    const path = file.webkitRelativePath || file.name;
    const names = path.split('/');
    for (let depth = 1; depth < names.length; depth += 1) {
      const folder = names.slice(0, depth).join('/');
      if (!folders.has(folder)) {
        folders.add(folder);
        tree.folders.push(folder);
      }
    }
    tree.files.push({ path, file });
  }
  return tree;
}
