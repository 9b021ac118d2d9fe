/**
 * The plan of a folder upload: which folders to make, which files go where, which of them
 * would land on a name already taken, and which are refused for their name. Pure logic, the
 * listing injected, so it is tested without a network. Plain files (picked or dropped) are a
 * batch too, without folders. Each conflict gets an answer (replace, keep both, skip): one for
 * the whole batch, or one per file.
 */
import i18next from 'i18next';
import { checkFileName, checkFolderPath } from '../../shared/validation';
import { ruleText } from '../api/errorText';
import { childFolder } from '../lib/places';
import type { DroppedTree } from './droppedTree';

/** One file's place in the upload: the folder path (null: the user's root) and its name there. */
export interface PlannedFile {
  folder: string | null;
  name: string;
  file: File;
  /** The name already in `folder` that this one would land on (compared as the daemon does, case folded). */
  existing: string | null;
}

/** A file (or an empty folder) whose name, or one of its folders' names, the daemon would refuse. */
export interface RefusedEntry {
  folder: string | null;
  name: string;
  file: File | null;
  message: string;
}

export interface BatchPlan {
  /** The folders to make, parents first; folders that exist are merged into, not made. */
  create: string[];
  files: PlannedFile[];
  refused: RefusedEntry[];
  /** The names (case folded) in each folder that exists, by folder path ('' for the root). */
  taken: ReadonlyMap<string, ReadonlySet<string>>;
}

export type ConflictAnswer = 'replace' | 'keep-both' | 'skip';

/** The answer for each conflict of a batch: one for all of them, or each its own. */
export type ConflictAnswers = ConflictAnswer | ((file: PlannedFile) => ConflictAnswer);

/** One upload to queue: `overwrite` when it replaces the file of that name. */
export interface UploadJob {
  folder: string | null;
  name: string;
  file: File;
  overwrite: boolean;
  /** Kept both: the taken name it goes beside, so a name taken meanwhile (a 409) gets the next free one. */
  besides: string | null;
}

/**
 * The names of the files directly in `folder` (null: the root), or null when the folder does
 * not exist. The plan asks it once per target folder at most, and never below a folder that
 * does not exist.
 */
export type ListFiles = (folder: string | null) => Promise<readonly string[] | null>;

/** Names compared as the daemon compares them (daemon/storage/case-folds.ts). */
export const foldName = (name: string): string => name.normalize('NFC').toUpperCase().toLowerCase();

const keyOf = (folder: string | null) => folder ?? '';

/** Plans the upload of `tree` into `destination`, listing each folder the tree merges into. */
export async function planBatch(dropped: DroppedTree, destination: string | null, listFiles: ListFiles): Promise<BatchPlan> {
  // Names as the daemon keeps them (a Mac hands over decomposed ones), so paths compare alike.
  const tree: DroppedTree = {
    folders: dropped.folders.map((path) => path.normalize('NFC')),
    files: dropped.files.map(({ path, file }) => ({ path: path.normalize('NFC'), file })),
  };
  const refusedFolders = new Map<string, string>();
  const create: string[] = [];
  const taken = new Map<string, Set<string>>();
  const existing = new Map<string, ReadonlyMap<string, string>>();

  const look = async (folder: string | null): Promise<void> => {
    const names = await listFiles(folder);
    if (names === null) return;
    taken.set(keyOf(folder), new Set(names.map(foldName)));
    existing.set(keyOf(folder), new Map(names.map((name) => [foldName(name), name])));
  };
  await look(destination);

  const missing = new Set<string>();
  for (const relative of tree.folders) {
    const reason = refusalOf(relative, destination);
    const parent = parentOf(relative);
    // Below a refused folder, every path is refused for the same reason.
    const inherited = parent === null ? undefined : refusedFolders.get(parent);
    if (inherited !== undefined || reason !== null) {
      refusedFolders.set(relative, inherited ?? reason!);
      continue;
    }
    const target = childFolder(destination, relative);
    // A folder inside one about to be made does not exist either: no listing for it.
    if (parent !== null && missing.has(parent)) {
      missing.add(relative);
      create.push(target);
      continue;
    }
    await look(target);
    if (!taken.has(target)) {
      missing.add(relative);
      create.push(target);
    }
  }

  const files: PlannedFile[] = [];
  const refused: RefusedEntry[] = [];
  for (const { path, file } of tree.files) {
    const parent = parentOf(path);
    const name = path.slice(parent === null ? 0 : parent.length + 1);
    const folder = parent === null ? destination : childFolder(destination, parent);
    const checked = checkFileName(name);
    const inherited = parent === null ? undefined : refusedFolders.get(parent);
    if (inherited !== undefined) {
      refused.push({ folder, name, file, message: inherited });
      continue;
    }
    if (!checked.ok) {
      refused.push({ folder, name, file, message: i18next.t('errors:invalidName', { rule: ruleText(checked.message) }) });
      continue;
    }
    const there = existing.get(keyOf(folder))?.get(foldName(checked.value)) ?? null;
    files.push({ folder, name: checked.value, file, existing: there });
  }
  // An empty folder with a bad name is reported too: it will not be made.
  for (const [relative, message] of refusedFolders) {
    const empty = !tree.files.some((entry) => entry.path.startsWith(`${relative}/`));
    const parent = parentOf(relative);
    const parentRefused = parent !== null && refusedFolders.has(parent);
    if (empty && !parentRefused) refused.push({ folder: destination, name: relative, file: null, message });
  }
  return { create, files, refused, taken };
}

/** What the daemon would say of the folder `relative` made in `destination`, or null when it is fine. */
function refusalOf(relative: string, destination: string | null): string | null {
  const name = relative.slice(relative.lastIndexOf('/') + 1);
  const checked = checkFileName(name);
  if (!checked.ok) return i18next.t('upload:folder.badFolderName', { name, rule: ruleText(checked.message) });
  const path = checkFolderPath(childFolder(destination, relative));
  return path.ok ? null : i18next.t('upload:folder.badPath');
}

function parentOf(path: string): string | null {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? null : path.slice(0, cut);
}

/** The files that would land on a name already taken. */
export const conflictsOf = (plan: BatchPlan): PlannedFile[] => plan.files.filter((file) => file.existing !== null);

/** The names a renamed copy may not take, per folder: what is there and the batch's own names. */
function takenNames(plan: BatchPlan) {
  const taken = new Map<string, Set<string>>();
  const takenIn = (folder: string | null) => {
    const key = keyOf(folder);
    let names = taken.get(key);
    if (!names) taken.set(key, (names = new Set(plan.taken.get(key) ?? [])));
    return names;
  };
  // The batch's own names are taken too, so a renamed copy never lands on a file of the batch.
  for (const planned of plan.files) takenIn(planned.folder).add(foldName(planned.name));
  return takenIn;
}

/** The name "keep both" would give `file` if it were the only copy kept (what the question shows). */
export const keptName = (plan: BatchPlan, file: PlannedFile): string => freeName(file.name, takenNames(plan)(file.folder));

/**
 * The uploads of a plan once its conflicts are answered (with no conflict, any answer gives
 * the same): a conflict replaces the file it lands on (under that file's own name), is left
 * out, or goes up beside it under a free name (`name (2).ext`).
 */
export function jobsOf(plan: BatchPlan, answers: ConflictAnswers): UploadJob[] {
  const answerFor = typeof answers === 'function' ? answers : () => answers;
  const takenIn = takenNames(plan);
  const jobs: UploadJob[] = [];
  for (const planned of plan.files) {
    const base = { folder: planned.folder, file: planned.file, besides: null };
    const answer = planned.existing === null ? null : answerFor(planned);
    if (answer === null) jobs.push({ ...base, name: planned.name, overwrite: false });
    else if (answer === 'replace') jobs.push({ ...base, name: planned.existing!, overwrite: true });
    else if (answer === 'keep-both') {
      const names = takenIn(planned.folder);
      const name = freeName(planned.name, names);
      names.add(foldName(name));
      jobs.push({ ...base, name, overwrite: false, besides: planned.name });
    }
  }
  return jobs;
}

/** `report.pdf` → `report (2).pdf`, `(3)`…, the first not in `taken` (folded names); a leading dot is not an extension. */
export function freeName(name: string, taken: ReadonlySet<string>): string {
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 2; ; n += 1) {
    const candidate = `${stem} (${n})${extension}`;
    if (!taken.has(foldName(candidate))) return candidate;
  }
}
