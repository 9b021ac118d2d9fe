/**
 * One step of the schema (docs/cluster.md, "The store"): a module `NNN-name.ts` exports one as
 * its default; index.ts lists them in order. Its own module, so that the steps and the list
 * that imports them do not import each other.
 */
export interface Migration {
  /** 1, 2, 3, … (the NNN of the file name). */
  version: number;
  name: string;
  /** Statements run in the migrations' transaction. */
  sql: string;
}
