// Reads of single keys asked for in the same turn of the event loop, sent together: one read-only transaction
// per 128 keys (etcd's --max-txn-ops) instead of one call per key. A member taking thousands of nodes at once
// reads each one's snapshot before driving it (issue 19: 10,000 separate reads at takeover).

import type { Etcd3 } from 'etcd3';
import { within } from './membership.js';

type Waiter = { resolve: (text: string | null) => void; reject: (err: Error) => void };

export class BatchedGets {
  #wanted = new Map<string, Waiter[]>();
  #soon: NodeJS.Immediate | undefined;
  /** Transactions sent, for tests and the benchmark. */
  calls = 0;

  constructor(
    private readonly client: Etcd3,
    private readonly timeoutMs: number,
    private readonly what: string,
    private readonly maxOps = 128,
  ) {}

  /** The key's value as a string, null when absent. */
  get(key: string): Promise<string | null> {
    return new Promise((resolve, reject) => {
      this.#wanted.set(key, [...(this.#wanted.get(key) ?? []), { resolve, reject }]);
      this.#soon ??= setImmediate(() => this.#send());
    });
  }

  #send(): void {
    this.#soon = undefined;
    const wanted = [...this.#wanted];
    this.#wanted = new Map();
    for (let i = 0; i < wanted.length; i += this.maxOps) void this.#read(wanted.slice(i, i + this.maxOps));
  }

  async #read(chunk: [string, Waiter[]][]): Promise<void> {
    this.calls++;
    try {
      const success = chunk.map(([key]) => ({ request_range: { key: Buffer.from(key) } }));
      const answer = await within(this.client.kv.txn({ compare: [], success }), this.timeoutMs, this.what);
      chunk.forEach(([, waiters], i) => {
        const value = answer.responses?.[i]?.response_range?.kvs?.[0]?.value;
        for (const w of waiters) w.resolve(value === undefined ? null : value.toString());
      });
    } catch (err) {
      for (const [, waiters] of chunk) for (const w of waiters) w.reject(err as Error);
    }
  }
}
