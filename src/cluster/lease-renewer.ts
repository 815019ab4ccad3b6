// Lease renewal that survives a dead etcd member: one client per endpoint, tried in turn, each attempt with
// its own short deadline. (etcd3's pooled keepalive opens a stream on a random endpoint and waits on a dead
// one without failing; its circuit breakers then refuse the live ones for a while: seen with one member of
// three killed, a lease went unrenewed past TTL/2.) The endpoint that answered last is tried first.
//
// Issue 19: on a member whose event loop is held for seconds (10,000 nodes starting), an attempt's answer
// could sit read-ready in its socket while its deadline timer fired first (timers run before I/O in each turn
// of the loop): the renewal was counted as failed, the member fenced itself, and etcd let the lease go. Now
// an attempt's deadline counts from when its request is written to the stream, and a deadline that fires
// gives the loop's I/O phase one turn before it fails the attempt (`answeredWithin`): an answer that came in
// time is read, whenever the loop gets to it. Safety does not depend on when the answer is read: the renewal
// counts from the moment before its request was written (see Membership), so reading it late only shortens
// the fence, never lengthens it.

import { type Etcd3, EtcdLeaseInvalidError, type ICallable, LeaseClient } from 'etcd3';
import { type EtcdSettings, etcdClient } from './etcd.js';

interface Endpoint {
  etcd: Etcd3;
  lease: LeaseClient;
}

/**
 * Resolves with the promise's value, or rejects once `ms` passed and the loop has had one more turn to read
 * what arrived meanwhile (a setImmediate callback runs after the turn's I/O callbacks and their microtasks):
 * an answer that was waiting in a socket when the deadline fired still counts.
 */
export function answeredWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() => reject(new Error(`${what}: no answer from etcd within ${ms} ms`)));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => {
    clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  });
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
   * request that succeeded was written (performance.now(), taken just before); throws EtcdLeaseInvalidError
   * when etcd says it expired.
   */
  async renew(id: string, windowMs: number): Promise<number> {
    const deadline = performance.now() + windowMs;
    const count = this.#endpoints.length;
    let lastError: unknown;
    for (let i = 0; i < count && performance.now() < deadline; i++) {
      const index = (this.#first + i) % count;
      const endpoint = this.#endpoints[index] as Endpoint;
      const attemptMs = Math.max(50, Math.min(windowMs / count, deadline - performance.now()));
      try {
        const sent = await this.#once(endpoint, id, attemptMs);
        this.#first = index;
        return sent;
      } catch (err) {
        if (err instanceof EtcdLeaseInvalidError) throw err;
        lastError = err;
      }
    }
    throw lastError ?? new Error('lease renewal: no endpoint tried');
  }

  /** One keepalive on `endpoint`: the stream is opened, then the request written and its answer awaited for `attemptMs`. */
  async #once({ lease }: Endpoint, id: string, attemptMs: number): Promise<number> {
    const opening = lease.leaseKeepAlive();
    // A stream that opens after its attempt gave up is closed, not left open.
    const stream = await answeredWithin(opening, attemptMs, 'lease renewal (stream)').catch((err: unknown) => {
      void opening.then((late) => late.end()).catch(() => undefined);
      throw err;
    });
    try {
      const sent = performance.now();
      const answer = new Promise<{ TTL: string }>((resolve, reject) => {
        stream.on('data', resolve);
        stream.on('error', reject);
      });
      stream.write({ ID: id });
      const res = await answeredWithin(answer, attemptMs, 'lease renewal');
      if (res.TTL === '0') throw new EtcdLeaseInvalidError(id);
      return sent;
    } finally {
      stream.end();
    }
  }

  close(): void {
    for (const { etcd } of this.#endpoints) etcd.close();
  }
}
