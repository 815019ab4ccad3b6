// One revision in force across members. The leader follows the Git branch and writes the sha it fetched to
// `<prefix>revision`; every member (the leader too) applies only that sha, read from its own clone: the key
// names a commit, Git holds its content, and a sha is its own check. A member whose clone lacks it fetches and
// waits meanwhile, and says so (`waiting`: /readyz and `groundcrew cluster status`). A new leader fetches before
// it writes anything: its clone may be older than the revision its predecessor put in force.
//
// The key is a trust boundary (whoever can write to etcd can write it), so a member applies a value only when it
// is a full object name (never an expression git would resolve: `main~1`), written by the elected leader under
// its lease (the leader's candidate key and the lease the record names agree), and a commit that descends from
// the one this member applied, as its own clone says. A commit that does not is refused and said (`waiting`),
// unless an operator allowed that sha on this member (`groundcrew source allow-rewind`), or, without
// source.verify, it is the head of the branch in this member's own clone (a force-push, applied and flagged as a
// single process applies it). With source.verify the leader never puts a rewound head in force: the head is
// refused as a single process refuses it, and recorded so.

import type { ClusterContext } from './etcd.js';
import { type InForceRecord, InForceSchema, OBJECT_NAME, parseJson } from './etcd-values.js';
import { type Leader, type LeaderElection, readLeader } from './leader-election.js';
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
  /** Whether `sha` is `ancestor` or descends from it, in this member's own clone; throws when it cannot tell. */
  descends: (sha: string, ancestor: string) => Promise<boolean>;
  /** The revision this member accepted last (kept in its state directory across restarts), if any. */
  lastGood: () => string | undefined;
  /** The head of the branch in this member's own clone. */
  head: () => string | undefined;
  /** An operator allowed this sha to leave the revision in force behind, on this member. */
  rewindAllowed: (sha: string) => boolean;
  /** source.verify: a rewind needs an operator's word, and the leader never puts one in force without it. */
  verify: boolean;
  /** The leader refused its head: it does not descend from the revision in force (recorded as a rejected revision). */
  refuse: (revision: R, from: string) => void;
}

/** The key as read: the record, when it is one. */
type Read = { record: InForceRecord } | { bad: string } | { none: true };

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
  /** The head the leader last refused to put in force (said and recorded once). */
  #refusedHead: string | undefined;
  /** `sha:ancestor` pairs this member's clone said do not descend. */
  readonly #notDescending = new Set<string>();
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
    const { membership } = this.options;
    const leader = await readLeader(this.options, membership.options.ttlMs / 3);
    const read = await this.#lead(await this.#read(), leader);
    await this.#follow(read, leader);
    await this.#publish();
  }

  /** The key as etcd has it now, checked (a value that is not a record is said once, and counted). */
  async #read(): Promise<Read> {
    const { client, keys, membership, rejected } = this.options;
    const text = await within(client.get(keys.inForce()).string(), membership.options.ttlMs / 3, 'revision in force');
    if (text === null) return { none: true };
    const parsed = parseJson(text, InForceSchema);
    if (!parsed.ok) {
      rejected.reject('revision', keys.inForce(), text, parsed.reason);
      return { bad: parsed.reason };
    }
    rejected.clear(keys.inForce());
    return { record: parsed.value };
  }

  /**
   * The leader writes its head, once its clone has caught up with the branch since it was elected; and writes it
   * again when the record is not its own (a predecessor's, or planted), so every member finds it under its lease.
   * Returns the key as it is after this pass's write.
   */
  async #lead(read: Read, leader: Leader | undefined): Promise<Read> {
    const { client, keys, membership, election, log } = this.options;
    const key = election.key;
    const lease = membership.leaseId;
    if (!election.isLeader() || !key || !lease || leader?.key !== key) {
      this.#caughtUp = undefined;
      return read;
    }
    if (this.#caughtUp !== key) {
      await this.options.fetch('elected leader: the branch as it is now');
      this.#caughtUp = key;
    }
    const head = this.#head;
    const current = 'record' in read ? read.record : undefined;
    const mine = current?.lease === lease && current.leader === membership.name;
    if (!head || !OBJECT_NAME.test(head.sha) || (mine && head.sha === current.sha)) return read;
    // What the head must descend from: what this member applied (checked as every member checks it), never the
    // record alone, which anyone who can write to etcd can plant.
    const from = this.#applied ?? this.options.lastGood();
    if (from && head.sha !== from && this.options.verify && !(await this.#descendsOrAllowed(head.sha, from, false))) {
      if (this.#refusedHead !== head.sha) {
        this.#refusedHead = head.sha;
        log.error(
          { sha: head.sha, from },
          `cluster: the branch's head ${head.sha.slice(0, 12)} does not descend from the revision in force ${from.slice(0, 12)}: not put in force (source.verify)`,
        );
        this.options.refuse(head, from);
      }
      return read;
    }
    // Only while this member's candidate key exists: its lease, hence its leadership, still holds.
    const record: InForceRecord = { sha: head.sha, leader: membership.name, lease, at: new Date().toISOString() };
    const res = await within(
      client
        .if(key, 'Version', '>', 0)
        .then(client.put(keys.inForce()).value(JSON.stringify(record)))
        .commit(),
      membership.options.ttlMs / 3,
      'revision in force',
    );
    if (!res.succeeded) return read;
    if (current?.sha !== head.sha) log.info({ sha: head.sha }, 'cluster: leader put a revision in force');
    return { record };
  }

  async #follow(read: Read, leader: Leader | undefined): Promise<void> {
    const { election } = this.options;
    if ('none' in read) {
      this.#waiting = `cluster: no revision in force yet (leader: ${election.leader ?? 'none elected yet'})`;
      return;
    }
    if ('bad' in read) {
      // Until the leader writes it again, a member stays on what it applied; one with nothing applied waits.
      this.#waiting =
        this.#applied === undefined
          ? `cluster: the revision in force in etcd is not one (${read.bad}): waiting for the leader to write it`
          : undefined;
      return;
    }
    const { sha, leader: by, lease } = read.record;
    this.#inForce = sha;
    if (sha === this.#applied) {
      this.#waiting = undefined;
      return;
    }
    if (!leader || leader.lease !== lease || leader.name !== by) {
      this.#waiting = `cluster: revision in force ${sha.slice(0, 12)} names leader ${by}, which is not the elected leader (${leader?.name ?? 'none'}) under its lease: waiting for the leader to write it`;
      return;
    }
    const revision = this.#head?.sha === sha ? this.#head : await this.options.lookup(sha);
    if (!revision) {
      this.#waiting = `cluster: revision in force ${sha.slice(0, 12)} (put by leader ${by}) is not in this member's clone yet: fetching`;
      this.options.log.info({ sha }, 'cluster: the revision in force is not in the clone yet: fetching');
      void this.options.fetch(`revision in force ${sha.slice(0, 12)}`);
      return;
    }
    const from = this.#applied ?? this.options.lastGood();
    if (from && from !== sha && !(await this.#descendsOrAllowed(sha, from, !this.options.verify))) {
      const refused = `cluster: revision in force ${sha.slice(0, 12)} (put by leader ${by}) does not descend from ${from.slice(0, 12)}, the revision this member applied: refused (a rollback is a new commit on the branch; an operator allows this one with \`groundcrew source allow-rewind ${sha}\`)`;
      if (this.#waiting !== refused) {
        this.options.log.error({ sha, from, leader: by }, refused);
        // Without source.verify a force-push of the branch is applied: this member's clone may not have seen it yet.
        if (!this.options.verify)
          void this.options.fetch(`revision in force ${sha.slice(0, 12)} does not descend from ${from.slice(0, 12)}`);
      }
      this.#waiting = refused;
      return;
    }
    this.#applied = sha;
    this.#waiting = undefined;
    this.options.log.info({ sha, leader: by }, 'cluster: applying the revision in force');
    await this.options.deliver(revision);
  }

  /**
   * `sha` descends from `from` in this member's clone, or an operator allowed it here, or (`headWins`) it is the
   * branch's head in this member's clone. A descent the clone cannot tell counts as none.
   */
  async #descendsOrAllowed(sha: string, from: string, headWins: boolean): Promise<boolean> {
    const { rewindAllowed, head, descends, log } = this.options;
    if (rewindAllowed(sha) || (headWins && head() === sha)) return true;
    const pair = `${sha}:${from}`;
    if (!OBJECT_NAME.test(from) || this.#notDescending.has(pair)) return false;
    const answer = await descends(sha, from).catch((err: Error) => {
      log.warn({ sha, from, err: err.message.split('\n')[0] }, 'cluster: cannot tell whether the revision descends: taken as not');
      return undefined;
    });
    // Commits do not change: a "no" is kept (a few), so a refused value costs no git process every pass.
    if (answer === false) {
      if (this.#notDescending.size >= 64) this.#notDescending.clear();
      this.#notDescending.add(pair);
    }
    return answer === true;
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
