// Every node's transition history, bounded and kept small at 10,000 nodes: the newest records as objects,
// older ones packed (packed.ts) in runs of up to CHUNK, and all of them once the node settles. A converge leaves
// about 16 records a node and each resync adds some; at HISTORY_LIMIT records as objects a long-running
// 10,000-node daemon would hold about 300 MiB.

import { RESTING } from '../node-state.js';
import { type Packed, pack, unpack } from './packed.js';
import type { TransitionRecord } from './status-store.js';

const HISTORY_LIMIT = 200;
const CHUNK = 16;

interface Kept {
  packed: { records: Packed<TransitionRecord[]>; count: number }[];
  recent: TransitionRecord[];
}

export class NodeHistory {
  readonly #nodes = new Map<string, Kept>();

  /** The node's last HISTORY_LIMIT records, oldest first. */
  list(name: string): TransitionRecord[] {
    const kept = this.#nodes.get(name);
    if (!kept) return [];
    const all = [...kept.packed.flatMap((p) => unpack(p.records)), ...kept.recent];
    return all.length > HISTORY_LIMIT ? all.slice(-HISTORY_LIMIT) : all;
  }

  push(name: string, record: TransitionRecord): void {
    let kept = this.#nodes.get(name);
    if (!kept) {
      kept = { packed: [], recent: [] };
      this.#nodes.set(name, kept);
    }
    kept.recent.push(record);
    // A node that settled (verified, stalled, ...) may rest for days: its records are packed at once.
    const settled = record.event === undefined && RESTING.has(record.state);
    if (kept.recent.length < CHUNK && !settled) return;
    const last = kept.packed.at(-1);
    if (last && last.count + kept.recent.length <= CHUNK) {
      // A short run packed at an earlier settle is filled up, so a node that settles often keeps whole runs.
      const records = [...unpack(last.records), ...kept.recent];
      kept.packed[kept.packed.length - 1] = { records: pack(records), count: records.length };
    } else kept.packed.push({ records: pack(kept.recent), count: kept.recent.length });
    kept.recent = [];
    // Whole runs are dropped once the others hold HISTORY_LIMIT records; list() cuts to the limit exactly.
    let count = kept.packed.reduce((sum, p) => sum + p.count, 0);
    while ((kept.packed[0]?.count ?? 0) > 0 && count - (kept.packed[0]?.count ?? 0) >= HISTORY_LIMIT) {
      count -= kept.packed.shift()?.count ?? 0;
    }
  }

  /** The node's history replaced by `records` (oldest first; another member's, taken over): the last HISTORY_LIMIT kept. */
  restore(name: string, records: readonly TransitionRecord[]): void {
    const kept: Kept = { packed: [], recent: [] };
    const last = records.slice(-HISTORY_LIMIT);
    const whole = last.length - (last.length % CHUNK);
    for (let i = 0; i < whole; i += CHUNK) kept.packed.push({ records: pack(last.slice(i, i + CHUNK)), count: CHUNK });
    kept.recent = last.slice(whole);
    this.#nodes.set(name, kept);
  }

  has(name: string): boolean {
    return this.#nodes.has(name);
  }

  forget(name: string): void {
    this.#nodes.delete(name);
  }
}
