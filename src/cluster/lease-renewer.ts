// Lease renewal that survives a dead etcd member: one client per endpoint, tried in turn, each attempt with
// its own short deadline. (etcd3's pooled keepalive opens a stream on a random endpoint and waits on a dead
// one without failing; its circuit breakers then refuse the live ones for a while: seen with one member of
// three killed, a lease went unrenewed past TTL/2.) The endpoint that answered last is tried first.

import { type Etcd3, EtcdLeaseInvalidError, type ICallable, LeaseClient } from 'etcd3';
import { type EtcdSettings, etcdClient } from './etcd.js';
import { within } from './membership.js';

interface Endpoint {
  etcd: Etcd3;
  lease: LeaseClient;
}

export class LeaseRenewer {
  readonly #endpoints: Endpoint[];
  #first = 0;

  constructor(settings: EtcdSettings, attemptMs: number) {
    this.#endpoints = settings.endpoints.map((endpoint) => {
      const etcd = etcdClient({ ...settings, endpoints: [endpoint] }, attemptMs * 3);
      // The client's connection pool, through which its own Lease objects call: etcd3 does not expose it.
      const pool = (etcd as unknown as { pool: ICallable<unknown> }).pool;
      return { etcd, lease: new LeaseClient(pool) };
    });
  }

  /**
   * Renews lease `id` once, trying each endpoint until one answers, within `windowMs`. Returns when the
   * request that succeeded left (performance.now()); throws EtcdLeaseInvalidError when etcd says it expired.
   */
  async renew(id: string, windowMs: number): Promise<number> {
    const deadline = performance.now() + windowMs;
    const count = this.#endpoints.length;
    let lastError: unknown;
    for (let i = 0; i < count && performance.now() < deadline; i++) {
      const index = (this.#first + i) % count;
      const endpoint = this.#endpoints[index] as Endpoint;
      const attemptMs = Math.max(50, Math.min(windowMs / count, deadline - performance.now()));
      const sent = performance.now();
      try {
        await within(this.#once(endpoint, id), attemptMs, 'lease renewal');
        this.#first = index;
        return sent;
      } catch (err) {
        if (err instanceof EtcdLeaseInvalidError) throw err;
        lastError = err;
      }
    }
    throw lastError ?? new Error('lease renewal: no endpoint tried');
  }

  async #once({ lease }: Endpoint, id: string): Promise<void> {
    const stream = await lease.leaseKeepAlive();
    try {
      const res = await new Promise<{ TTL: string }>((resolve, reject) => {
        stream.on('data', resolve);
        stream.on('error', reject);
        stream.write({ ID: id });
      });
      if (res.TTL === '0') throw new EtcdLeaseInvalidError(id);
    } finally {
      stream.end();
    }
  }

  close(): void {
    for (const { etcd } of this.#endpoints) etcd.close();
  }
}
