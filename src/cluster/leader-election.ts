// Which member follows Git for the cluster. etcd's election protocol (client/v3/concurrency/election.go, which
// etcd3's Election and `etcdctl elect` also speak): each candidate puts `<prefix>election/leader/<lease id>` under
// its lease, created only if absent, and the key created first leads. The candidate key lives under the member's
// own lease, not a second one (etcd3's Campaign grants its own and keeps it alive on its pooled stream, which
// stalls on a dead etcd member): the leader is fenced exactly as its commands are, and leads only while
// `mayIssue()`. Leadership ends when that lease goes, so a paused leader's successor waits out its TTL.

import type { ClusterContext } from './etcd.js';
import { type Membership, within } from './membership.js';

export class LeaderElection {
  #leader: string | undefined;
  /** The oldest candidate key: the leader's. */
  #leaderKey: string | undefined;
  /** This member's candidate key, under its current lease. */
  #key: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(
    private readonly options: Omit<ClusterContext, 'timeoutMs'> & {
      membership: Membership;
      /** Leadership changed (this member's or another's). */
      onChange: (leader: string | undefined) => void;
    },
  ) {
    options.membership.on('lost', () => {
      this.#key = undefined;
      void this.look();
    });
    options.membership.on('joined', () => void this.look());
  }

  /** The leader as last read (a member name), or undefined while there is none. */
  get leader(): string | undefined {
    return this.#leader;
  }

  /** This member leads now: its candidate key is the oldest, and its lease is renewed (not fenced). */
  isLeader(): boolean {
    const { membership } = this.options;
    return this.#key !== undefined && this.#leaderKey === this.#key && membership.mayIssue();
  }

  /** The candidate key a leader's writes are conditioned on (it exists only while this member's lease does). */
  get key(): string | undefined {
    return this.#key;
  }

  start(everyMs: number): void {
    this.#timer = setInterval(() => void this.look(), everyMs);
    this.#timer.unref();
    void this.look();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  /** Campaigns if this member has no candidate key yet, then reads who leads. */
  async look(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      await this.#campaign();
      await this.#read();
    } catch (err) {
      this.options.log.warn({ err: (err as Error).message }, 'cluster: leader election: etcd call failed');
    } finally {
      this.#running = false;
    }
  }

  async #campaign(): Promise<void> {
    const { client, keys, membership } = this.options;
    const lease = membership.leaseId;
    if (!lease || !membership.mayIssue()) return;
    const key = keys.candidate(lease);
    if (this.#key === key) return;
    await within(
      client.if(key, 'Create', '==', 0).then(client.put(key).value(membership.name).lease(lease)).commit(),
      membership.options.ttlMs / 3,
      'campaign',
    );
    this.#key = key;
  }

  async #read(): Promise<void> {
    const { client, keys, membership, log, onChange } = this.options;
    const res = await within(
      client.getAll().prefix(keys.candidates()).sort('Create', 'Ascend').limit(1).exec(),
      membership.options.ttlMs / 3,
      'leader',
    );
    const first = res.kvs[0];
    this.#leaderKey = first?.key.toString();
    const leader = first?.value.toString();
    if (leader === this.#leader) return;
    this.#leader = leader;
    log.info({ leader: leader ?? null, me: leader === membership.name }, 'cluster: leader');
    onChange(leader);
  }
}
