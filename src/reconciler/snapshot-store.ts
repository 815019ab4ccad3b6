// Each node machine's persisted snapshot, written atomically after every transition (temp file, fsync,
// rename, directory fsync), so a kill -9 at any moment leaves either the old snapshot or the new one, never
// half of one. The writes are off the event loop (fs/promises, libuv's threads): a save is taken at once and
// written in the background, only the newest per node; `flush(node)` says when what was saved is on disk, and
// every command to the node waits for it (durable-executor.ts), so the state that decides after a crash (the
// boot id read before a reboot) is on disk before the command it guards goes out.

import { mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writePrivateFile, writePrivateFileSync } from '../private-files.js';

/**
 * Where node snapshots live: local files by default (SnapshotStore below); cluster mode puts them in etcd
 * (src/cluster/), behind the same calls.
 */
export interface NodeSnapshots {
  save(node: string, snapshot: unknown): void;
  load(node: string): { saved?: unknown; setAside?: { file: string; reason: string } };
  setAside(node: string, reason: string): string;
  remove(node: string): void;
  /**
   * Settles once every save and remove of `node` asked so far is durable; rejects with why when one could not
   * be written. A store without it writes before save returns (or guards commands itself, as cluster mode does).
   */
  flush?(node: string): Promise<void>;
}

/** A node's writes: the newest text not yet written (null: remove the file), the chain of writes, the last failure. */
interface NodeWrites {
  next?: string | null;
  /** The newest text asked for (null: removed). */
  last: string | null;
  chain: Promise<void>;
  failed?: Error;
}

export class SnapshotStore implements NodeSnapshots {
  readonly #writes = new Map<string, NodeWrites>();
  /** The directory fsync running, and the one that callers arriving meanwhile share (it starts after). */
  #dirSync?: Promise<void>;
  #dirSyncNext?: Promise<void>;

  constructor(
    readonly dir: string,
    private readonly log: (msg: string) => void = () => undefined,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  #file(node: string): string {
    return join(this.dir, `${node}.json`);
  }

  /** Takes the snapshot now (serialized before the machine moves on); written in the background. */
  save(node: string, snapshot: unknown): void {
    this.#enqueue(node, JSON.stringify(snapshot));
  }

  remove(node: string): void {
    this.#enqueue(node, null);
  }

  flush(node: string): Promise<void> {
    const writes = this.#writes.get(node);
    if (!writes) return Promise.resolve();
    return writes.chain.then(() => {
      if (writes.failed) throw writes.failed;
    });
  }

  /** Every node's writes: for a clean stop and for tests. */
  async flushAll(): Promise<void> {
    await Promise.all([...this.#writes.values()].map((w) => w.chain));
  }

  #enqueue(node: string, text: string | null): void {
    let writes = this.#writes.get(node);
    if (!writes) {
      writes = { chain: Promise.resolve(), last: null };
      this.#writes.set(node, writes);
    }
    const waiting = writes.next !== undefined;
    writes.next = text;
    writes.last = text;
    // One write queued behind the running one takes whatever is newest when it starts.
    if (!waiting) writes.chain = writes.chain.then(() => this.#writeNext(node, writes));
  }

  async #writeNext(node: string, writes: NodeWrites): Promise<void> {
    const text = writes.next;
    writes.next = undefined;
    if (text === undefined) return;
    try {
      if (text === null) await rm(this.#file(node), { force: true });
      else await this.#writeDurably(node, text);
      writes.failed = undefined;
    } catch (err) {
      writes.failed = err as Error;
      this.log(`snapshot of ${node} could not be written (${(err as Error).message}); no command goes to the node until one is`);
    } finally {
      if (writes.next === undefined && this.#writes.get(node) === writes && !writes.failed) this.#writes.delete(node);
    }
  }

  async #writeDurably(node: string, text: string): Promise<void> {
    // A temporary name of its own, random and exclusive: a predictable one could be planted as a link to follow.
    await writePrivateFile(this.#file(node), text);
    await this.#syncDir();
  }

  /** The directory's fsync (the rename made durable); callers that arrive while one runs share the next one. */
  #syncDir(): Promise<void> {
    if (!this.#dirSync) return this.#startDirSync();
    this.#dirSyncNext ??= this.#dirSync
      .catch(() => undefined)
      .then(() => {
        this.#dirSyncNext = undefined;
        return this.#startDirSync();
      });
    return this.#dirSyncNext;
  }

  #startDirSync(): Promise<void> {
    const run: Promise<void> = this.#fsyncDir().finally(() => {
      if (this.#dirSync === run) this.#dirSync = undefined;
    });
    this.#dirSync = run;
    return run;
  }

  async #fsyncDir(): Promise<void> {
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  /**
   * The node's saved JSON, if any: a save not yet on disk is what the node is (the file may still hold the one
   * before). Unparsable text is set aside at once (the node starts from its facts: level-triggered, nothing is
   * lost); `setAside` names the file it was moved to.
   */
  load(node: string): { saved?: unknown; setAside?: { file: string; reason: string } } {
    const writes = this.#writes.get(node);
    if (writes?.last === null) return {};
    const file = this.#file(node);
    let text: string;
    if (writes) text = writes.last;
    else {
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return {};
      }
    }
    try {
      return { saved: JSON.parse(text) };
    } catch (err) {
      const reason = `unparsable JSON (${(err as Error).message})`;
      return { setAside: { file: this.setAside(node, reason), reason } };
    }
  }

  /** Moves the node's snapshot to `<file>.corrupt-<time>`, kept for a post-mortem; returns the new path. */
  setAside(node: string, reason: string): string {
    const file = this.#file(node);
    const aside = `${file}.corrupt-${Date.now()}`;
    const writes = this.#writes.get(node);
    if (writes) {
      // Saved by this process and maybe not on disk yet: what was saved is kept aside, the file goes after the writes.
      // Its name is only as unpredictable as the clock: written the way every state file is, never through a link.
      writePrivateFileSync(aside, writes.last ?? '');
      this.#enqueue(node, null);
    } else renameSync(file, aside);
    this.log(`snapshot of ${node} cannot be restored (${reason}); set aside as ${aside}, the node starts over from its facts`);
    return aside;
  }

  nodes(): string[] {
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length));
  }
}
