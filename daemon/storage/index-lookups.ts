/**
 * The reading side of the file index (file-index.ts): the users' trees and the lookups in them,
 * the case folds of each directory, and each file map's names in order. Every change goes
 * through FileIndex, which announces it; what is read here is never changed by its reader.
 */
import { EventEmitter } from 'node:events';
import type { ChangeEvent } from '../../shared/types.js';
import { CaseFolds } from './case-folds.js';
import { folderAt } from './index-tree.js';
import type { FileMeta, FolderNode, UserNode } from './index-tree.js';

export class IndexLookups extends EventEmitter<{ change: [ChangeEvent]; userScanned: [string] }> {
  readonly users = new Map<string, UserNode>();
  /** Names that differ only in case, per directory map (files, folders, users). */
  readonly caseFolds = new CaseFolds();
  /** Sorted names of a file map, rebuilt only after a name is added or removed. */
  readonly #sorted = new WeakMap<Map<string, FileMeta>, string[]>();

  /** The names of a file map in code-point order, cached between changes. */
  sortedNames(files: Map<string, FileMeta>): string[] {
    let names = this.#sorted.get(files);
    if (!names) {
      names = [...files.keys()].sort();
      this.#sorted.set(files, names);
    }
    return names;
  }

  /**
   * Another entry in the same directory whose name differs from `name` only in case (or
   * normalisation): a file or folder in the same directory (one directory holds both), at
   * the user's root or in `folder`. Undefined if there is none; `name` itself and `except`
   * (a file being renamed to `name`) never count.
   */
  caseTwin(username: string, folder: string | null, name: string, except?: string): string | undefined {
    const node = this.users.get(username);
    const dir = folder === null ? node : folderAt(node, folder);
    if (!dir) return undefined;
    const files = 'root' in dir ? dir.root : dir.files;
    return this.caseFolds.twin(files, name, except) ?? this.caseFolds.twin(dir.folders, name, except);
  }

  /** The folder at `folder` (a path), or undefined. */
  folder(username: string, folder: string): FolderNode | undefined {
    return folderAt(this.users.get(username), folder);
  }

  user(username: string): UserNode | undefined {
    return this.users.get(username);
  }

  usedBytes(username: string): number {
    return this.users.get(username)?.usedBytes ?? 0;
  }

  files(username: string, folder: string | null): Map<string, FileMeta> | undefined {
    const node = this.users.get(username);
    if (!node) return undefined;
    return folder === null ? node.root : folderAt(node, folder)?.files;
  }

  getFile(username: string, folder: string | null, name: string): FileMeta | undefined {
    return this.files(username, folder)?.get(name);
  }

  /** A name was added to or removed from `files`: its sorted names are read again when next asked for. */
  protected namesChanged(files: Map<string, FileMeta>): void {
    this.#sorted.delete(files);
  }
}
