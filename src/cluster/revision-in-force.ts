// One revision in force across members. The leader follows the Git branch and writes the sha it fetched to
// `<prefix>revision`; every member (the leader too) applies only that sha, read from its own clone: the key
// names a commit, Git holds its content, and a sha is its own check. A member whose clone lacks it fetches and
// waits meanwhile, and says so (`waiting`: /readyz and `groundcrew cluster status`). A new leader fetches before
// it writes anything: its clone may be older than the revision its predecessor put in force.

import type { ClusterContext } from './etcd.js';
import type { LeaderElection } from './leader-election.js';
import { type Membership, within } from './membership.js';

/** What the source hands on (a Revision), as far as this module reads it. */
export interface Commit {
  sha: string;
}

export interface RevisionInForceOptions<R extends Commit> extends Omit<ClusterContext, 'timeoutMs'> {
  membership: Membership;
  election: LeaderElection;
  /** The revision of a commit this member's clone has, or undefined. */
  lookup: (sha: string) => Promise<R | undefined>;
  /** Fetch now; resolves once the fetch (and any revision it handed on) is done. */
  fetch: (reason: string) => Promise<unknown>;
  /** Applies a revision (intake: validated whole, then the reconciler). */
  deliver: (revision: R) => Promise<unknown>;
}

export class RevisionInForce<R extends Commit> {
  /** The newest head this member's source handed on. */
  #head: R | undefined;
  /** The sha in force, as last read from etcd. */
  #inForce: string | undefined;
  #applied: string | undefined;
  #waiting: string | undefined;
  /** The leader's clone is at least as new as the branch was when it was elected. */
  #caughtUp: string | undefined;
  #published: string | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RevisionInForceOptions<R>) {
    options.membership.on('lost', () => {
      this.#published = undefined;
    });
  }

  /** The sha this member applied last (from the key in etcd). */
  get applied(): string | undefined {
    return this.#applied;
  }

  get inForce(): string | undefined {
    return this.#inForce;
  }

  /** Why this member is not on the revision in force, while it is not. */
  get waiting(): string | undefined {
    return this.#waiting;
  }

  /** A new head from this member's source: the leader puts it in force; any member may need it. */
  offer(revision: R): void {
    this.#head = revision;
    void this.kick();
  }

  start(everyMs: number): void {
    this.#timer = setInterval(() => void this.kick(), everyMs);
    this.#timer.unref();
    void this.kick();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  /** A pass now, or right after the one running; resolves when the pass it started (or found) ends. */
  kick(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#pass()
      .catch((err: Error) => this.options.log.warn({ err: err.message }, 'cluster: revision in force: etcd call failed'))
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          void this.kick();
        }
      });
    return this.#running;
  }

  async #pass(): Promise<void> {
    await this.#lead();
    await this.#follow();
    await this.#publish();
  }

  /** The leader writes its head, once its clone has caught up with the branch since it was elected. */
  async #lead(): Promise<void> {
    const { client, keys, membership, election, log } = this.options;
    const key = election.key;
    if (!election.isLeader() || !key) {
      this.#caughtUp = undefined;
      return;
    }
    if (this.#caughtUp !== key) {
      await this.options.fetch('elected leader: the branch as it is now');
      this.#caughtUp = key;
    }
    const head = this.#head;
    if (!head || head.sha === this.#inForce) return;
    // Only while this member's candidate key exists: its lease, hence its leadership, still holds.
    const value = JSON.stringify({ sha: head.sha, leader: membership.name, at: new Date().toISOString() });
    const res = await within(
      client.if(key, 'Version', '>', 0).then(client.put(keys.inForce()).value(value)).commit(),
      membership.options.ttlMs / 3,
      'revision in force',
    );
    if (!res.succeeded) return;
    this.#inForce = head.sha;
    log.info({ sha: head.sha }, 'cluster: leader put a revision in force');
  }

  async #follow(): Promise<void> {
    const { client, keys, membership, election } = this.options;
    const text = await within(client.get(keys.inForce()).string(), membership.options.ttlMs / 3, 'revision in force');
    if (text === null) {
      this.#waiting = `cluster: no revision in force yet (leader: ${election.leader ?? 'none elected yet'})`;
      return;
    }
    const { sha, leader } = JSON.parse(text) as { sha: string; leader: string };
    this.#inForce = sha;
    if (sha === this.#applied) return;
    const revision = this.#head?.sha === sha ? this.#head : await this.options.lookup(sha);
    if (!revision) {
      this.#waiting = `cluster: revision in force ${sha.slice(0, 12)} (put by leader ${leader}) is not in this member's clone yet: fetching`;
      this.options.log.info({ sha }, 'cluster: the revision in force is not in the clone yet: fetching');
      void this.options.fetch(`revision in force ${sha.slice(0, 12)}`);
      return;
    }
    this.#applied = sha;
    this.#waiting = undefined;
    this.options.log.info({ sha, leader }, 'cluster: applying the revision in force');
    await this.options.deliver(revision);
  }

  /** What this member applies or waits for, under its lease, for `groundcrew cluster status`. */
  async #publish(): Promise<void> {
    const { client, keys, membership } = this.options;
    const lease = membership.leaseId;
    if (!lease || !membership.mayIssue()) return;
    const value = JSON.stringify({ sha: this.#applied, ...(this.#waiting ? { waiting: this.#waiting } : {}) });
    if (value === this.#published) return;
    await within(client.put(keys.appliedBy(membership.name)).value(value).lease(lease).exec(), membership.options.ttlMs / 3, 'applied');
    this.#published = value;
  }
}
