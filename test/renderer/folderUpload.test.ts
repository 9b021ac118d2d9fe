/**
 * Folder upload (issue 25): the walk of a drop's entries and of the picker's files, and the
 * batch's plan: folders made or merged into, conflicts found with one listing per folder,
 * and the one answer (replace, keep both, skip) applied to the whole batch. The entries are
 * stand-ins for the browser's File System entries (jsdom has none); the listing is a map.
 */
import { describe, expect, it } from 'vitest';
import { holdsDirectory, readDroppedTree, treeOfPickedFiles, type DroppedTree } from '../../renderer/upload/droppedTree';
import { conflictsOf, freeName, jobsOf, planBatch, type ListFiles } from '../../renderer/upload/folderBatch';

const fileNamed = (name: string, text = name) => new File([text], name);

function fileEntry(name: string): FileSystemFileEntry {
  return {
    name,
    isFile: true,
    isDirectory: false,
    file: (ok: (file: File) => void) => ok(fileNamed(name)),
  } as unknown as FileSystemFileEntry;
}

/** A directory whose reader answers its children `batch` at a time, then an empty batch, as Chromium does. */
function directoryEntry(name: string, children: FileSystemEntry[], batch = 100): FileSystemDirectoryEntry {
  return {
    name,
    isFile: false,
    isDirectory: true,
    createReader: () => {
      let next = 0;
      return {
        readEntries: (ok: (entries: FileSystemEntry[]) => void) => {
          const part = children.slice(next, next + batch);
          next += part.length;
          queueMicrotask(() => ok(part));
        },
      };
    },
  } as unknown as FileSystemDirectoryEntry;
}

/** A listing of the folders that exist, each with its file names; a missing folder answers null, and each call is counted. */
function listing(existing: Record<string, string[]>) {
  const asked: string[] = [];
  const list: ListFiles = (folder) => {
    asked.push(folder ?? '');
    return Promise.resolve(existing[folder ?? ''] ?? null);
  };
  return { list, asked };
}

const tree = (files: string[], folders: string[]): DroppedTree => ({
  files: files.map((path) => ({ path, file: fileNamed(path) })),
  folders,
});

describe('reading a drop', () => {
  it('walks nested directories to every depth, parents before children, empty ones included', async () => {
    const drop = [
      directoryEntry('trip', [
        fileEntry('a.txt'),
        directoryEntry('day 1', [fileEntry('b.txt'), directoryEntry('night', [fileEntry('c.txt')])]),
        directoryEntry('empty', []),
      ]),
      fileEntry('loose.txt'),
    ];
    expect(holdsDirectory(drop)).toBe(true);
    const read = await readDroppedTree(drop);
    expect(read.folders).toEqual(['trip', 'trip/day 1', 'trip/day 1/night', 'trip/empty']);
    expect(read.files.map((entry) => entry.path)).toEqual(['trip/a.txt', 'trip/day 1/b.txt', 'trip/day 1/night/c.txt', 'loose.txt']);
    expect(read.files[2].file.name).toBe('c.txt');
  });

  it('keeps reading a directory until its reader answers an empty batch', async () => {
    const children = Array.from({ length: 250 }, (_, i) => fileEntry(`f${i}.txt`));
    const read = await readDroppedTree([directoryEntry('many', children, 100)]);
    expect(read.files).toHaveLength(250);
    expect(read.files.at(-1)?.path).toBe('many/f249.txt');
  });

  it('says a drop of plain files holds no directory', () => {
    expect(holdsDirectory([fileEntry('a.txt'), fileEntry('b.txt')])).toBe(false);
  });

  it('builds the tree of the folder picker’s files from their relative paths', () => {
    const picked = ['trip/a.txt', 'trip/day 1/b.txt', 'trip/day 1/night/c.txt'].map((path) => {
      const file = fileNamed(path.slice(path.lastIndexOf('/') + 1));
      Object.defineProperty(file, 'webkitRelativePath', { value: path });
      return file;
    });
    const read = treeOfPickedFiles(picked);
    expect(read.folders).toEqual(['trip', 'trip/day 1', 'trip/day 1/night']);
    expect(read.files.map((entry) => entry.path)).toEqual(['trip/a.txt', 'trip/day 1/b.txt', 'trip/day 1/night/c.txt']);
  });
});

describe('planning a folder upload', () => {
  it('makes the missing folders parents first, without listing below a folder that does not exist', async () => {
    const { list, asked } = listing({ docs: [] });
    const plan = await planBatch(
      tree(['trip/a.txt', 'trip/day 1/b.txt', 'trip/day 1/night/c.txt'], ['trip', 'trip/day 1', 'trip/day 1/night', 'trip/empty']),
      'docs',
      list,
    );
    expect(plan.create).toEqual(['docs/trip', 'docs/trip/day 1', 'docs/trip/day 1/night', 'docs/trip/empty']);
    expect(asked).toEqual(['docs', 'docs/trip']);
    expect(conflictsOf(plan)).toEqual([]);
    expect(jobsOf(plan, 'skip').map((job) => [job.folder, job.name, job.overwrite])).toEqual([
      ['docs/trip', 'a.txt', false],
      ['docs/trip/day 1', 'b.txt', false],
      ['docs/trip/day 1/night', 'c.txt', false],
    ]);
  });

  it('merges into a folder that exists, lists each existing folder once, and finds the names taken there', async () => {
    const { list, asked } = listing({ '': ['top.txt'], trip: ['a.txt', 'Notes.md'], 'trip/day 1': [] });
    const plan = await planBatch(
      tree(['trip/a.txt', 'trip/notes.md', 'trip/new.txt', 'trip/day 1/b.txt', 'top.txt'], ['trip', 'trip/day 1']),
      null,
      list,
    );
    expect(plan.create).toEqual([]);
    expect(asked).toEqual(['', 'trip', 'trip/day 1']);
    // Names that differ only in case are the same name to the daemon.
    expect(conflictsOf(plan).map((file) => [file.folder, file.name, file.existing])).toEqual([
      ['trip', 'a.txt', 'a.txt'],
      ['trip', 'notes.md', 'Notes.md'],
      [null, 'top.txt', 'top.txt'],
    ]);
  });

  it('applies one answer to every conflict of the batch: replace, skip or keep both', async () => {
    const { list } = listing({ trip: ['a.txt', 'a (2).txt', 'b'] });
    const plan = await planBatch(tree(['trip/a.txt', 'trip/b', 'trip/c.txt'], ['trip']), null, list);
    const summary = (answer: 'replace' | 'skip' | 'keep-both') =>
      jobsOf(plan, answer).map((job) => `${job.name}${job.overwrite ? ' (replace)' : ''}`);
    expect(summary('replace')).toEqual(['a.txt (replace)', 'b (replace)', 'c.txt']);
    expect(summary('skip')).toEqual(['c.txt']);
    expect(summary('keep-both')).toEqual(['a (3).txt', 'b (2)', 'c.txt']);
  });

  it('never gives a kept copy a name another file of the batch goes to', async () => {
    const { list } = listing({ '': ['a.txt'] });
    const plan = await planBatch(tree(['a.txt', 'a (2).txt'], []), null, list);
    expect(jobsOf(plan, 'keep-both').map((job) => job.name)).toEqual(['a (3).txt', 'a (2).txt']);
  });

  it('refuses a bad name per file and a bad folder name for every file below it, the rest of the batch going on', async () => {
    const { list } = listing({});
    const plan = await planBatch(
      tree(
        ['trip/ok.txt', 'trip/bad?.txt', 'trip/CON/x.txt', 'trip/CON/deeper/y.txt'],
        ['trip', 'trip/CON', 'trip/CON/deeper', 'trip/nul'],
      ),
      null,
      list,
    );
    expect(plan.create).toEqual(['trip']);
    expect(plan.files.map((file) => file.name)).toEqual(['ok.txt']);
    expect(plan.refused.map((entry) => [entry.folder, entry.name])).toEqual([
      ['trip', 'bad?.txt'],
      ['trip/CON', 'x.txt'],
      ['trip/CON/deeper', 'y.txt'],
      [null, 'trip/nul'],
    ]);
    expect(plan.refused[0].message).toMatch(/^The name must not contain/);
    expect(plan.refused[1].message).toMatch(/^The name of the folder “CON” must not be a reserved device name/);
  });

  it('picks the next free name, keeping the extension and a leading dot', () => {
    expect(freeName('report.pdf', new Set())).toBe('report (2).pdf');
    expect(freeName('report.pdf', new Set(['report (2).pdf']))).toBe('report (3).pdf');
    expect(freeName('.bashrc', new Set())).toBe('.bashrc (2)');
    expect(freeName('archive.tar.gz', new Set(['archive.tar (2).gz']))).toBe('archive.tar (3).gz');
  });
});
