// Which nodes this member drives. Each node goes to a live member by rendezvous hashing; a member drives a
// node only while it holds the node's owner key, created under its lease in a create-if-absent transaction.
// A node moves when its owner lets go (the reconciler stops it at a settled state and deletes the key) or
// when the owner's lease expires: the key cannot be taken while it exists, so no two members drive a node.
//
// At scale (issue 19: 10,000 nodes) the keys are taken in batches, one transaction per batch, and each batch
// is prepared at once and handed to the reconciler as soon as it is taken, not at the end of the pass. Newly
// owned nodes then start driving at a bounded rate (`startRate`): taking 10,000 nodes never starts 10,000
// machines, and their 10,000 first state writes, in one tick.

import { type IKeyValue, Range } from 'etcd3';
import type { NodeScope } from '../reconciler/node-scope.js';
import { type StartPace, StartPacer } from '../reconciler/start-pacer.js';
import type { ClusterContext } from './etcd.js';
import { type OwnerRecord, OwnerSchema, parseJson } from './etcd-values.js';
import { type Membership, within } from './membership.js';
import { ownerOf } from './rendezvous.js';

/**
 * Keys taken per transaction. etcd refuses a transaction with more than `--max-txn-ops` (128 by default)
 * compares, or success operations, or failure operations (etcd server/etcdserver/api/v3rpc/key.go,
 * checkTxnRequest): a batch is one compare and one put per key, well under it.
 */
export const TAKE_BATCH = 100;

export interface OwnershipOptions extends Omit<ClusterContext, 'timeoutMs'> {
  membership: Membership;
  /** Runs once a batch of nodes' keys is taken, before the reconciler drives them (loads their snapshots). */
  prepare?: (nodes: string[]) => Promise<void>;
  /** The set of nodes this member drives, or should hand over, changed: these nodes, or (none named) any. */
  onChange: (nodes?: readonly string[]) => void;
  /** How fast newly owned nodes may start driving (start-pacer.ts); unbounded when not given. */
  startRate?: StartPace;
  /** Nodes to take and start first (a failover: the dead member's nodes that were mid-work); others keep their order. */
  takeFirst?: (node: string) => boolean;
  /** Keys per take transaction (TAKE_BATCH). */
  batch?: number;
}

export class Ownership implements Omit<NodeScope, 'elsewhere'> {
  #nodes: string[] = [];
  /** Nodes whose owner key this member created under its current lease and still holds. */
  readonly #held = new Set<string>();
  /** Held and prepared, and let through the start pacer: the reconciler may drive them. */
  readonly #ready = new Set<string>();
  /** Held and prepared, waiting for the start pacer. */
  readonly #pacer: StartPacer;
  /** Let through the pacer's first lane and not settled here yet: they go first at the run window too. */
  readonly #wentFirst = new Set<string>();
  #owners = new Map<string, OwnerRecord>();
  #running: Promise<void> | undefined;
  #again = false;
  /** The members changed during a pass: it stops taking (its hashing is stale) and the next one goes on. */
  #stale = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: OwnershipOptions) {
    const { membership } = options;
    this.#pacer = new StartPacer(options.startRate, (nodes, first) => this.#start(nodes, first));
    membership.on('lost', () => this.#dropAll());
    membership.on('joined', () => this.#restale());
    membership.on('members', () => this.#restale());
  }

  /** Looks again every `everyMs` besides on every change (a missed change is found there). */
  start(everyMs: number): void {
    this.#timer = setInterval(() => this.kick(), everyMs);
    this.#timer.unref();
    this.kick();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#pacer.clear();
  }

  /** The nodes of the revision in force. */
  setNodes(nodes: string[]): void {
    this.#nodes = [...nodes];
    this.kick();
  }

  get owners(): ReadonlyMap<string, OwnerRecord> {
    return this.#owners;
  }

  /** Nodes held and prepared but not yet let through the start pacer. */
  get waiting(): number {
    return this.#pacer.size;
  }

  /** The owner key's value while this member owns `node` and may write (not fenced); else undefined. */
  ownerValue(node: string): string | undefined {
    const { membership } = this.options;
    const lease = membership.leaseId;
    if (!lease || !this.#held.has(node) || !membership.mayIssue()) return undefined;
    return JSON.stringify({ member: membership.name, lease } satisfies OwnerRecord);
  }

  holds(node: string): boolean {
    return this.#held.has(node);
  }

  drives(node: string): 'yes' | 'hand-over' | 'no' {
    if (!this.#ready.has(node)) return 'no';
    return this.#target(node) === this.options.membership.name ? 'yes' : 'hand-over';
  }

  /**
   * A node held here and still waiting at the start pacer, which another node's gate waits for (a compute's
   * Keystone host): it starts ahead of the others waiting. Else the node left mid-work that went first waits on
   * it at the end of the queue (issue 19: behind 3,000 nodes a restarted member was still starting).
   */
  moveFirst(node: string): void {
    if (this.#pacer.moveFirst(node)) this.options.log.info({ node }, 'cluster: a node another waits for starts first');
  }

  /** The reconciler saw `node` settle: its place in the start window goes to the next. */
  settled(node: string): void {
    this.#wentFirst.delete(node);
    this.#pacer.done(node);
  }

  /**
   * Let through ahead of the others (a dead member left it mid-work, or another node's gate waits for it) and
   * not settled here yet: the reconciler's run window lets it in ahead of the nodes waiting there too (a
   * periodic resync can queue thousands).
   */
  startsFirst(node: string): boolean {
    return this.#wentFirst.has(node) && this.#held.has(node);
  }

  letGo(node: string): void {
    if (!this.#held.delete(node)) return;
    this.#ready.delete(node);
    this.#wentFirst.delete(node);
    this.#pacer.remove(node);
    this.options.log.info({ node }, 'cluster: node handed over');
    void this.#giveBack([node])
      .then(() => this.kick())
      .catch((err: Error) => this.options.log.warn({ node, err: err.message }, 'cluster: could not delete the owner key'));
  }

  /** Runs a pass now, or right after the one running. */
  kick(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#stale = false;
    this.#running = this.#pass()
      .catch((err: Error) => this.options.log.warn({ err: err.message }, 'cluster: ownership pass failed'))
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.kick();
        }
      });
  }

  #restale(): void {
    if (this.#running) this.#stale = true;
    this.kick();
  }

  #target(node: string): string | undefined {
    return ownerOf(node, this.options.membership.members);
  }

  #start(nodes: string[], first: number): void {
    const started = nodes.filter((n) => this.#held.has(n));
    for (const node of started) this.#ready.add(node);
    if (started.length === 0) return;
    for (const node of nodes.slice(0, first)) if (this.#held.has(node)) this.#wentFirst.add(node);
    // Said when nodes a dead member left mid-work start (the failover's timeline), not for every batch.
    if (first > 0) this.options.log.info({ nodes: nodes.slice(0, first), waiting: this.#pacer.size }, 'cluster: first-lane nodes started');
    this.options.onChange(started);
  }

  #dropAll(): void {
    this.#pacer.clear();
    this.#wentFirst.clear();
    if (this.#held.size === 0) return;
    this.#held.clear();
    this.#ready.clear();
    this.options.onChange();
  }

  /** Deletes this member's owner keys of `nodes` (each only while it is still this lease's). */
  async #giveBack(nodes: string[]): Promise<void> {
    const { client, keys, membership } = this.options;
    const lease = membership.leaseId;
    if (!lease || nodes.length === 0) return;
    const mine = JSON.stringify({ member: membership.name, lease } satisfies OwnerRecord);
    await within(
      Promise.all(
        nodes.map((node) =>
          client
            .if(keys.owner(node), 'Value', '==', mine)
            .then(client.delete().key(keys.owner(node)))
            .commit(),
        ),
      ),
      membership.options.ttlMs / 3,
      'give nodes back',
    );
  }

  async #pass(): Promise<void> {
    const { client, keys, membership, log } = this.options;
    const lease = membership.leaseId;
    const me = membership.name;
    if (!lease) return this.#dropAll();
    const ttlMs = membership.options.ttlMs;
    const range = Range.prefix(keys.owners());
    const raw = await within(client.kv.range({ key: range.start, range_end: range.end }), ttlMs / 3, 'owners');
    // The members as etcd has them now, not as the last renewal read them (up to TTL/3 old): a member that
    // took nodes on a stale view would take nodes hashed to a member that had already joined. Read after the
    // owners: a member registers before it takes a key, and its key and its owner keys go with its lease at
    // once, so an owner key read before naming no member read after was never a member's (or is gone now).
    await membership.readMembers();
    this.#stale = false;
    const owners = new Map<string, OwnerRecord>();
    const release: IKeyValue[] = [];
    for (const kv of raw.kvs) {
      const owner = this.#owner(kv);
      if (owner) owners.set(kv.key.toString().slice(keys.owners().length), owner);
      else release.push(kv);
    }
    this.#owners = owners;
    await this.#release(release);
    const changed: string[] = [];
    // A key this member held that is gone or under another lease: lost (its lease expired meanwhile).
    for (const node of [...this.#held]) {
      const owner = owners.get(node);
      if (owner?.member === me && owner.lease === lease) continue;
      this.#held.delete(node);
      this.#wentFirst.delete(node);
      if (this.#ready.delete(node)) changed.push(node);
      this.#pacer.remove(node);
      log.warn({ node }, 'cluster: owner key lost');
    }
    // Take what hashing gives this member, only where nobody holds it; never while fenced.
    if (!membership.mayIssue() || !membership.members.includes(me)) {
      if (changed.length > 0) this.options.onChange(changed);
      return;
    }
    const mine = JSON.stringify({ member: me, lease } satisfies OwnerRecord);
    const giveBack: string[] = [];
    const take: string[] = [];
    for (const node of this.#nodes) {
      const owner = owners.get(node);
      const ours = owner?.member === me && owner.lease === lease;
      const hashed = this.#target(node) === me;
      if (this.#held.has(node)) {
        // Held, never started, and hashed elsewhere now: given back at once (the reconciler never had it).
        if (!hashed && !this.#ready.has(node)) {
          this.#held.delete(node);
          this.#wentFirst.delete(node);
          this.#pacer.remove(node);
          giveBack.push(node);
        }
        continue;
      }
      if (owner && !ours) continue;
      // Taken by this lease in a pass whose preparation failed (etcd slow): prepared again if still hashed
      // here, else given back rather than held undriven.
      if (!hashed) {
        if (ours) giveBack.push(node);
        continue;
      }
      take.push(node);
    }
    await this.#giveBack(giveBack);
    // Held but hashed elsewhere now, and driven: the reconciler hands it over once it settles.
    for (const node of this.#ready) if (this.#target(node) !== me) changed.push(node);
    if (changed.length > 0) this.options.onChange(changed);
    // Nodes to take first are taken first, and go through the start pacer ahead of every node already waiting there
    // (judged now: once held, a node's shared status is this member's own and says nothing of its last owner).
    const goFirst = new Set(this.options.takeFirst ? take.filter((n) => this.options.takeFirst?.(n)) : []);
    take.sort((a, b) => Number(goFirst.has(b)) - Number(goFirst.has(a)));
    if (take.length > 0) log.info({ nodes: take.length, first: take[0], goFirst: goFirst.size }, 'cluster: taking nodes');
    const size = this.options.batch ?? TAKE_BATCH;
    for (let i = 0; i < take.length; i += size) {
      // The lease changed, the fence closed or the members changed since the pass began: stop here, the
      // next pass goes on from what etcd says then.
      if (membership.leaseId !== lease || !membership.mayIssue() || this.#stale) {
        this.#again = true;
        return;
      }
      const batch = take.slice(i, i + size);
      const taken = await this.#take(batch, owners, mine);
      if (taken.length === 0) continue;
      for (const node of taken) owners.set(node, { member: me, lease });
      await this.options.prepare?.(taken);
      // Lost meanwhile (the lease expired while preparing): not held, not started.
      if (membership.leaseId !== lease) return;
      for (const node of taken) this.#held.add(node);
      this.#pacer.add(taken, (n) => goFirst.has(n));
      log.info({ nodes: taken.length, first: taken[0] }, 'cluster: nodes taken');
    }
  }

  /**
   * An owner key as read, if it is one: a record that parses, under the lease it names, which is the lease of the
   * member it names. Else undefined (said once): a planted or left-over key that would hold the node for nobody.
   */
  #owner(kv: IKeyValue): OwnerRecord | undefined {
    const { rejected, membership } = this.options;
    const key = kv.key.toString();
    const value = kv.value.toString();
    const record = parseJson(value, OwnerSchema);
    const why = !record.ok
      ? record.reason
      : kv.lease !== record.value.lease
        ? `not under the lease it names (${kv.lease === '0' ? 'no lease' : 'another lease'})`
        : membership.leases.get(record.value.member) !== record.value.lease
          ? `names no live member under that lease ("${record.value.member}")`
          : undefined;
    if (!why) {
      rejected.clear(key);
      return record.ok ? record.value : undefined;
    }
    rejected.reject('owner', key, value, why);
    return undefined;
  }

  /** Deletes owner keys that hold their nodes for nobody (each only as it was read): the nodes are taken again. */
  async #release(kvs: IKeyValue[]): Promise<void> {
    const { client, membership, log } = this.options;
    if (kvs.length === 0) return;
    await within(
      Promise.all(
        kvs.map((kv) => client.if(kv.key.toString(), 'Mod', '==', kv.mod_revision).then(client.delete().key(kv.key.toString())).commit()),
      ),
      membership.options.ttlMs / 3,
      'release owner keys',
    );
    log.info({ nodes: kvs.length }, 'cluster: owner keys that named no live member released');
  }

  /**
   * Takes the owner keys of `batch` that nobody holds (those already this lease's are kept): one transaction
   * whose compares all say "absent", which fails whole if any key exists; then, for that batch only, one
   * transaction per key. Returns the nodes this member now holds.
   */
  async #take(batch: string[], owners: ReadonlyMap<string, OwnerRecord>, mine: string): Promise<string[]> {
    const { client, keys, membership } = this.options;
    const ttlMs = membership.options.ttlMs;
    const lease = membership.leaseId as string;
    const absent = batch.filter((n) => !owners.has(n));
    const kept = batch.filter((n) => owners.has(n));
    if (absent.length === 0) return kept;
    let txn = client.if(keys.owner(absent[0] as string), 'Create', '==', 0);
    for (const node of absent.slice(1)) txn = txn.and(keys.owner(node), 'Create', '==', 0);
    const whole = await within(
      txn.then(...absent.map((node) => client.put(keys.owner(node)).value(mine).lease(lease))).commit(),
      ttlMs / 3,
      'take nodes',
    );
    if (whole.succeeded) return [...kept, ...absent];
    // Some key appeared since the owners were read (another member took it): each of the others on its own.
    const one = await within(
      Promise.all(
        absent.map(async (node) => {
          const res = await client
            .if(keys.owner(node), 'Create', '==', 0)
            .then(client.put(keys.owner(node)).value(mine).lease(lease))
            .commit();
          return res.succeeded ? node : undefined;
        }),
      ),
      ttlMs / 3,
      'take nodes one by one',
    );
    return [...kept, ...one.filter((n): n is string => n !== undefined)];
  }
}
