// One transaction of fenced state writes for many nodes (FencedWrites' batch): a compare per node on its owner
// key, the puts and deletes when all hold, and, when one does not, a read of every owner key so the answer says
// which node was lost. Kept within etcd's limits on operations and bytes per request.

import type { IRequestOp, ITxnRequest, ITxnResponse } from 'etcd3';
import type { ClusterKeys } from './etcd.js';

/** One write waiting to go: the newest value for its key. */
export interface Entry {
  node: string;
  key: string;
  value: string | null;
  attempt: number;
  /** performance.now() before which it is not sent (a pause after a failure). */
  notBefore: number;
}

/** What a batch costs in bytes beyond its keys and values: protobuf framing, per operation (generous). */
const OVERHEAD = 32;

export class StateBatch {
  readonly entries: Entry[] = [];
  /** The owner key's expected value, by node, in the order of the compares. */
  readonly #owners = new Map<string, string>();
  #bytes = 0;
  /** The node this batch is for alone (its compare failed in an earlier batch). */
  #alone: string | undefined;

  constructor(
    private readonly keys: ClusterKeys,
    private readonly maxOps: number,
    private readonly maxBytes: number,
  ) {}

  /** Whether a write of `node` may join (a node sent alone shares its batch with no other). */
  accepts(node: string, alone: boolean): boolean {
    if (this.entries.length === 0) return true;
    if (this.#alone !== undefined) return this.#alone === node;
    return !alone;
  }

  /** Adds the write when it fits (the first always does: etcd then says whether it is too big); false when full. */
  add(entry: Entry, owner: string, alone: boolean): boolean {
    const compare = this.#owners.has(entry.node) ? 0 : 1;
    const bytes =
      entry.key.length +
      (entry.value?.length ?? 0) +
      OVERHEAD +
      compare * 2 * (this.keys.owner(entry.node).length + owner.length + OVERHEAD);
    if (this.entries.length > 0) {
      if (this.#owners.size + compare > this.maxOps || this.entries.length + 1 > this.maxOps) return false;
      if (this.#bytes + bytes > this.maxBytes) return false;
    }
    if (alone) this.#alone = entry.node;
    this.#owners.set(entry.node, owner);
    this.entries.push(entry);
    this.#bytes += bytes;
    return true;
  }

  /** The transaction: every owner as expected, then the writes; else read the owners back. */
  request(): ITxnRequest {
    const owners = [...this.#owners];
    return {
      compare: owners.map(([node, owner]) => ({
        key: Buffer.from(this.keys.owner(node)),
        target: 'Value',
        result: 'Equal',
        value: Buffer.from(owner),
      })),
      success: this.entries.map(
        ({ key, value }): IRequestOp =>
          value === null
            ? { request_delete_range: { key: Buffer.from(key) } }
            : { request_put: { key: Buffer.from(key), value: Buffer.from(value) } },
      ),
      failure: owners.map(([node]) => ({ request_range: { key: Buffer.from(this.keys.owner(node)) } })),
    };
  }

  /**
   * The nodes whose owner key was not as expected, from the failure branch's reads (none when it succeeded).
   * An answer that does not say (a read missing) counts its node as lost: sent alone, it finds out for itself.
   */
  lost(result: ITxnResponse): Set<string> {
    const lost = new Set<string>();
    if (result.succeeded) return lost;
    [...this.#owners].forEach(([node, owner], i) => {
      const kv = result.responses?.[i]?.response_range?.kvs?.[0];
      if (kv?.value?.toString() !== owner) lost.add(node);
    });
    return lost;
  }
}
