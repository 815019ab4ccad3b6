// A member's lease and registration, and the fence that follows from them. The lease is renewed every TTL/3;
// a member that has not seen a renewal succeed for TTL/2 stops issuing commands and writes (`mayIssue`),
// well before etcd lets the lease expire at TTL and another member takes its nodes. The time of a renewal
// is when its request left, so a late answer never stretches the fence (Kubernetes' leader election reasons
// the same way: client-go tools/leaderelection, renewDeadline < leaseDuration).

import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { EtcdLeaseInvalidError, type Lease, type Watcher } from 'etcd3';
import type { Logger } from 'pino';
import type { ClusterContext } from './etcd.js';
import { MemberSchema, parseJson } from './etcd-values.js';
import type { LeaseRenewer } from './lease-renewer.js';

export interface MembershipOptions extends Omit<ClusterContext, 'timeoutMs' | 'log'> {
  member: string;
  ttlMs: number;
  /** Renews the lease, one endpoint after another. */
  renewer: LeaseRenewer;
  /** Where this member's status page and API listen (shown by `groundcrew cluster status`). */
  url?: string;
  log: Logger;
}

/** Resolves with the promise's value, or rejects once `ms` passed (a call to an etcd without quorum can hang). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer from etcd within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Events: `joined` (a new lease, registered), `lost` (the lease expired at etcd: nothing is owned any more),
 * `resumed` (renewed after being fenced: what waited may go on), `members`.
 */
export class Membership extends EventEmitter {
  #lease: Lease | undefined;
  #leaseId: string | undefined;
  #renewedAt = Number.NEGATIVE_INFINITY;
  #members: string[] = [];
  /** Each member's lease, as its key was last read. */
  #leases = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #lastError: string | undefined;
  /** The watch on the members' keys, while it runs (made again at the next renewal when it fails). */
  #watcher: Watcher | undefined;
  #watching = false;
  /** Reads of the members started, and the newest one taken in: an answer older than that is dropped. */
  #reads = 0;
  #newestRead = 0;
  readonly since = new Date().toISOString();

  constructor(readonly options: MembershipOptions) {
    super();
  }

  get name(): string {
    return this.options.member;
  }

  /** The lease this member's keys live under, while it has one. */
  get leaseId(): string | undefined {
    return this.#leaseId;
  }

  get members(): readonly string[] {
    return this.#members;
  }

  /** The lease each member's key lives under, as last read. */
  get leases(): ReadonlyMap<string, string> {
    return this.#leases;
  }

  /** Milliseconds since the last renewal that succeeded (its request's departure). */
  get renewalAgeMs(): number {
    return performance.now() - this.#renewedAt;
  }

  /**
   * Commands and state writes are allowed: a lease, renewed less than TTL/2 ago. Why that is safe: a renewal
   * counts from `s`, read just before its request was written; etcd receives it at some r >= s and then keeps
   * the lease at least until r + TTL >= s + TTL (a new etcd leader only extends leases). This is true only
   * while now < s + TTL/2, and every write to a node's socket asks it synchronously just before the write
   * (ssh-executor's `mayWrite`; cluster-member's `guard`, the fence before each command): whatever leaves, leaves at least TTL/2
   * before etcd could let the lease go, which covers the bytes' way to the node and clock-rate differences.
   * An answer read late (a held event loop) leaves `s` as it was: the fence closes sooner, never later.
   */
  mayIssue(): boolean {
    return this.#leaseId !== undefined && this.renewalAgeMs < this.options.ttlMs / 2;
  }

  /** Why this member may not change nodes now, if it may not. */
  fencedReason(): string | undefined {
    if (this.mayIssue()) return undefined;
    const why = this.#lastError ? ` (${this.#lastError})` : '';
    if (this.#leaseId === undefined) return `cluster: no etcd lease${why}: not changing any node`;
    return `cluster: etcd lease not renewed for ${Math.round(this.renewalAgeMs)} ms (limit ${this.options.ttlMs / 2} ms)${why}: not changing any node`;
  }

  /** Joins now if etcd answers, else keeps trying every TTL/3 (fenced meanwhile: status stays readable). */
  async start(): Promise<void> {
    await this.#join().catch((err: Error) => {
      this.#lastError = err.message;
      this.options.log.warn({ err: err.message }, 'cluster: cannot join yet');
    });
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    void this.#watcher?.cancel().catch(() => undefined);
    this.#watcher = undefined;
    const lease = this.#lease;
    this.#lease = undefined;
    this.#leaseId = undefined;
    // Revoked, not left to expire: the other members take the nodes over at once.
    await within(lease?.revoke() ?? Promise.resolve(), this.options.ttlMs / 3, 'revoke').catch(() => undefined);
  }

  /**
   * Every TTL/3 from the start of one renewal to the start of the next: counted from its end, a renewal and
   * the members read after it (slow on a loaded machine) came out of the fence's slack of TTL/6, and the fence
   * closed for a renewal that was merely late.
   */
  #schedule(startedAt = performance.now()): void {
    if (this.#stopped) return;
    const wait = Math.max(0, startedAt + this.options.ttlMs / 3 - performance.now());
    this.#timer = setTimeout(() => {
      const started = performance.now();
      void this.#tick().finally(() => this.#schedule(started));
    }, wait);
  }

  async #join(): Promise<void> {
    const { client, keys, member, ttlMs, url, log } = this.options;
    const lease = client.lease(Math.max(1, Math.ceil(ttlMs / 1000)), { autoKeepAlive: false });
    lease.on('lost', () => undefined);
    const sent = performance.now();
    const id = await within(lease.grant(), ttlMs / 3, 'lease grant');
    await within(
      lease
        .put(keys.member(member))
        .value(JSON.stringify({ name: member, url, since: this.since }))
        .exec(),
      ttlMs / 3,
      'register',
    );
    this.#lease = lease;
    this.#leaseId = id;
    this.#renewedAt = sent;
    this.#lastError = undefined;
    log.info({ member, lease: id }, 'cluster: joined with a new lease');
    this.emit('joined');
    // Watching before the first read: a member that comes or goes between the two is not missed.
    await within(this.#watch(), ttlMs / 3, 'watch the members').catch(() => undefined);
    await this.readMembers();
  }

  /**
   * Watches the members' keys: a member whose lease ended is seen when etcd deletes its key, not at this
   * member's next renewal (up to TTL/3 later), and its nodes are taken over then. Issue 19's failover timeline:
   * the owner keys went at the lease's end and were taken 1.7 to 2.4 s later, waiting for that renewal. The
   * renewal's read stays, for a watch that fails or an event it missed.
   */
  #watch(): Promise<void> {
    if (this.#watcher || this.#watching || this.#stopped) return Promise.resolve();
    this.#watching = true;
    const { client, keys, log } = this.options;
    return client
      .watch()
      .prefix(keys.members())
      .create()
      .then((watcher) => {
        if (this.#stopped) return void watcher.cancel().catch(() => undefined);
        this.#watcher = watcher;
        const changed = () =>
          void this.readMembers().catch((err: Error) => log.warn({ err: err.message }, 'cluster: members not read after a change'));
        watcher.on('put', changed);
        watcher.on('delete', changed);
        watcher.on('error', (err: Error) => {
          if (this.#watcher !== watcher) return;
          this.#watcher = undefined;
          log.warn({ err: err.message }, 'cluster: the watch on the members ended; made again at the next renewal');
          void watcher.cancel().catch(() => undefined);
        });
      })
      .catch((err: Error) => log.warn({ err: err.message }, 'cluster: cannot watch the members yet'))
      .finally(() => {
        this.#watching = false;
      });
  }

  async #tick(): Promise<void> {
    const { ttlMs, log } = this.options;
    try {
      const lease = this.#lease;
      if (!lease) {
        await this.#join();
        return;
      }
      const sent = await this.options.renewer.renew(this.#leaseId as string, ttlMs / 3);
      const wasFenced = !this.mayIssue();
      if (this.#lease === lease) this.#renewedAt = sent;
      if (wasFenced && this.mayIssue()) {
        log.info('cluster: lease renewed again: changing nodes again');
        this.emit('resumed');
      }
      this.#lastError = undefined;
      void this.#watch();
      await this.readMembers();
    } catch (err) {
      this.#lastError = (err as Error).message;
      if (err instanceof EtcdLeaseInvalidError && this.#lease) {
        log.warn({ lease: this.#leaseId }, 'cluster: the lease expired at etcd: every node this member held is given up');
        this.#lease = undefined;
        this.#leaseId = undefined;
        this.emit('lost');
      } else log.warn({ err: this.#lastError }, 'cluster: etcd call failed');
    }
  }

  /**
   * The live members as etcd has them now (each member registers under its lease); `members` when they changed.
   * A key counts only under a lease (a key put without one would never go: its nodes hashed to nobody for ever)
   * and with a registration that parses and names the key's member.
   */
  async readMembers(): Promise<void> {
    const { client, keys, ttlMs } = this.options;
    const read = ++this.#reads;
    const res = await within(client.getAll().prefix(keys.members()).exec(), ttlMs / 3, 'members');
    // A read started before one already taken in (the watch's and the renewal's can cross): older, dropped.
    if (read < this.#newestRead) return;
    this.#newestRead = read;
    this.#leases = this.#live(res.kvs);
    const members = [...this.#leases.keys()].sort();
    if (members.join('\0') === this.#members.join('\0')) return;
    this.#members = members;
    this.options.log.info({ members }, 'cluster: members');
    this.emit('members', members);
  }

  /** The member keys that are members, with their leases; the others said once (`rejected`). */
  #live(kvs: { key: Buffer; value: Buffer; lease: string }[]): Map<string, string> {
    const { keys, rejected } = this.options;
    const live = new Map<string, string>();
    for (const kv of kvs) {
      const key = kv.key.toString();
      const name = key.slice(keys.members().length);
      const value = kv.value.toString();
      const record = parseJson(value, MemberSchema);
      const why = !record.ok
        ? record.reason
        : record.value.name !== name
          ? `registers "${record.value.name}" under the key of "${name}"`
          : kv.lease === '0'
            ? 'under no lease'
            : undefined;
      if (why) rejected.reject('member', key, value, why);
      else {
        rejected.clear(key);
        live.set(name, kv.lease);
      }
    }
    return live;
  }
}
