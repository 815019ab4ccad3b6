// What a source is: something that finds new revisions of the inventory and hands each on, unvalidated.

import type { InventoryFiles } from '../inventory/parse-inventory.js';

/** A commit (or a working copy's content) the source found, checked out where its inventory can be read. */
export interface Revision {
  sha: string;
  /** The inventory's directory: in the working copy (path source), or where it would be checked out (Git). */
  dir: string;
  /** The top of the working tree `dir` lies in, when the source checked one out (Git): `dir`'s folders came from the repo. */
  root?: string;
  subject: string;
  /** The commit's author (`Name <email>`) and commit time (ISO 8601), when the source has commits (Git). */
  author?: string;
  committedAt?: string;
  /** What made the source look: poll, webhook, start, a file change. */
  trigger: string;
  /**
   * The inventory's files read straight from the commit (Git: from the object database; nothing is checked
   * out). When absent, intake reads them from `dir`.
   */
  files?: () => Promise<InventoryFiles>;
}

export interface Source {
  start(): Promise<void>;
  /** Look now (a webhook, `groundcrew reconcile`); requests while a look runs are merged into one more. */
  trigger(reason: string): Promise<void>;
  stop(): Promise<void>;
  readonly head: string | undefined;
  /** Why the source is stuck (a look that has not finished for several poll intervals), or undefined. */
  stalled?(): string | undefined;
  /** Commit `sha` as a revision if this source already has it (Git: in the clone), else undefined. */
  revision?(sha: string, trigger: string): Promise<Revision | undefined>;
  /**
   * Whether commit `sha` is `ancestor` or descends from it (Git only: a head that does not was rewound). Throws
   * when the source cannot tell (a commit it does not have).
   */
  descends?(sha: string, ancestor: string): Promise<boolean>;
}

/** Where a source hands each new revision (the reconciler's intake). */
export type OnRevision = (revision: Revision) => Promise<void>;
