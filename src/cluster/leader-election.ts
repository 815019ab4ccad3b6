// Which member follows Git for the cluster. etcd's election protocol (client/v3/concurrency/election.go, which
// etcd3's Election and `etcdctl elect` also speak): each candidate puts `<prefix>election/leader/<lease id>` under
// its lease, created only if absent, and the key created first leads. The candidate key lives under the member's
// own lease, not a second one (etcd3's Campaign grants its own and keeps it alive on its pooled stream, which
// stalls on a dead etcd member): the leader is fenced exactly as its commands are, and leads only while
// `mayIssue()`. Leadership ends when that lease goes, so a paused leader's successor waits out its TTL.
// A candidate key counts only as written: its name a lease id, the key under that very lease, its value a
// member's name. One put without a lease over the leader's key would otherwise name a leader for ever.

import type { IKeyValue } from 'etcd3';
import type { ClusterContext } from './etcd.js';
import { MEMBER_NAME } from './etcd-values.js';
import { type Membership, within } from './membership.js';

/** The elected leader: its name, and the lease its candidate key (and its leadership) lives under. */
export interface Leader {
  name: string;
  lease: string;
  key: string;
}

/** Candidates read at once: more than any cluster has members, fewer than a flood of planted keys could cost. */
const CANDIDATES_READ = 64;

/**
 * The oldest candidate key that is one (see the head of this file), as etcd has it now; undefined while none is.
 * Keys that are not candidates are skipped, and said (`rejected`).
 */
export async function readLeader(
  context: Pick<ClusterContext, 'client' | 'keys' | 'rejected'>,
  timeoutMs: number,
): Promise<Leader | undefined> {
  const { client, keys, rejected } = context;
  const res = await within(
    client.getAll().prefix(keys.candidates()).sort('Create', 'Ascend').limit(CANDIDATES_READ).exec(),
    timeoutMs,
    'leader',
  );
  for (const kv of res.kvs) {
    const leader = candidate(kv, keys.candidates().length);
    if (typeof leader !== 'string') {
      rejected.clear(kv.key.toString());
      return leader;
    }
    rejected.reject('leader', kv.key.toString(), kv.value.toString(), leader);
  }
  return undefined;
}

/** A candidate key as a leader, or why it is not one. */
function candidate(kv: IKeyValue, prefixLength: number): Leader | string {
  const key = kv.key.toString();
  const lease = key.slice(prefixLength);
  const name = kv.value.toString();
  if (kv.lease === '0' || kv.lease !== lease)
    return `not under the lease its name says (${kv.lease === '0' ? 'no lease' : 'another lease'})`;
  if (!MEMBER_NAME.test(name)) return 'its value is not a member name';
  return { name, lease, key };
}

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
    const { membership, log, onChange } = this.options;
    const first = await readLeader(this.options, membership.options.ttlMs / 3);
    this.#leaderKey = first?.key;
    const leader = first?.name;
    if (leader === this.#leader) return;
    this.#leader = leader;
    log.info({ leader: leader ?? null, me: leader === membership.name }, 'cluster: leader');
    onChange(leader);
  }
}
