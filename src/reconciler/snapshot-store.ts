// Each node machine's persisted snapshot, written atomically after every transition (temp file, fsync,
// rename), so a kill -9 at any moment leaves either the old snapshot or the new one, never half of one.

import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where node snapshots live: local files by default (SnapshotStore below); cluster mode puts them in etcd
 * (src/cluster/), behind the same calls.
 */
export interface NodeSnapshots {
  save(node: string, snapshot: unknown): void;
  load(node: string): { saved?: unknown; setAside?: { file: string; reason: string } };
  setAside(node: string, reason: string): string;
  remove(node: string): void;
}

export class SnapshotStore implements NodeSnapshots {
  constructor(
    readonly dir: string,
    private readonly log: (msg: string) => void = () => undefined,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  #file(node: string): string {
    return join(this.dir, `${node}.json`);
  }

  save(node: string, snapshot: unknown): void {
    const file = this.#file(node);
    const tmp = `${file}.tmp-${process.pid}`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify(snapshot));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    const dirFd = openSync(this.dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  }

  /**
   * The node's saved JSON, if any. Unparsable text is set aside at once (the node starts from its facts:
   * level-triggered, nothing is lost); `setAside` names the file it was moved to.
   */
  load(node: string): { saved?: unknown; setAside?: { file: string; reason: string } } {
    const file = this.#file(node);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return {};
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
    renameSync(file, aside);
    this.log(`snapshot of ${node} cannot be restored (${reason}); set aside as ${aside}, the node starts over from its facts`);
    return aside;
  }

  nodes(): string[] {
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length));
  }

  remove(node: string): void {
    rmSync(this.#file(node), { force: true });
  }
}
