// Cluster mode, assembled for the daemon: the etcd client, this member's lease and registration, node
// ownership, and the fence every command passes. To the reconciler and the daemon it is their Coordination
// (reconciler/coordination.ts), as a single process's is local-coordination.ts.

import { EtcdAuthenticationFailedError, EtcdPermissionDeniedError } from 'etcd3';
import type { Logger } from 'pino';
import type { HostKeyStore, PinStore } from '../dataplane/host-keys.js';
import { errors } from '../errors.js';
import type { Coordination, CoordinationListener, Fence, MemberProbe, SourceAndIntake } from '../reconciler/coordination.js';
import type { NodeScope } from '../reconciler/node-scope.js';
import type { StartPace } from '../reconciler/start-pacer.js';
import type { StatusStore } from '../reconciler/status-store.js';
import { type ClusterContext, ClusterKeys, type EtcdSettings, etcdClient } from './etcd.js';
import { EtcdSnapshots } from './etcd-snapshots.js';
import { RejectedValues } from './etcd-values.js';
import { FencedWrites } from './fenced-writes.js';
import { FetchRelay } from './fetch-relay.js';
import { GlobalBudget } from './global-budget.js';
import { desiredRevisions, GlobalFailures } from './global-failures.js';
import { SharedHostKeyPins } from './host-key-pins.js';
import { LeaderElection } from './leader-election.js';
import { LeaseRenewer } from './lease-renewer.js';
import { Membership, within } from './membership.js';
import { Ownership } from './ownership.js';
import { type Commit, RevisionInForce } from './revision-in-force.js';
import { SharedDetails } from './shared-details.js';
import { SharedStatus, verifiedOnDesired } from './shared-status.js';

export interface ClusterSettings {
  member: string;
  ttlMs: number;
  prefix: string;
  etcd: EtcdSettings;
  /** Newly owned nodes that start driving per second (and at most at once): the start pacer (start-pacer.ts). */
  startRate?: StartPace;
}

/** Nobody listens yet: the reconciler listens as it is built, before the member starts. */
const NOT_LISTENING: CoordinationListener = {
  rescope: () => undefined,
  wake: () => undefined,
  request: () => undefined,
  failuresChanged: () => undefined,
};

export class ClusterMember<R extends Commit = Commit> implements Coordination<R> {
  readonly client;
  readonly keys: ClusterKeys;
  /** Values read from etcd that did not parse, by kind (for /metrics). */
  readonly rejected: RejectedValues;
  readonly membership: Membership;
  readonly renewer: LeaseRenewer;
  readonly ownership: Ownership;
  readonly writes: FencedWrites;
  readonly shared: SharedStatus;
  /** Webhooks reach one member: the others fetch too. */
  readonly relay: FetchRelay;
  /** The disruption budget's slots, cluster-wide. */
  readonly slots: GlobalBudget;
  /** Which member follows Git. */
  readonly election: LeaderElection;
  /** The one revision every member applies: the leader writes it, each member reads it from its own clone. */
  readonly revisions: RevisionInForce<R>;
  #flow: SourceAndIntake<R> | undefined;
  /** The failure budget's record, cluster-wide. */
  readonly failures: GlobalFailures;
  /** Node snapshots, in etcd: the reconciler's store in cluster mode. */
  readonly snapshots: EtcdSnapshots;
  /** Nodes' histories and run reports, in etcd: the server's source for nodes driven elsewhere. */
  readonly details: SharedDetails;
  /** The reconciler's view: which nodes to drive, and the state of those driven elsewhere. */
  readonly scope: NodeScope;
  /** Every command passes it: this member owns the node, its lease is fresh, the node's state is in etcd. */
  readonly fence: Fence = { guard: (node) => this.guard(node), open: (node) => this.mayChange(node) };
  #listener = NOT_LISTENING;

  constructor(
    readonly settings: ClusterSettings,
    private readonly log: Logger,
    status: StatusStore,
  ) {
    const hooks = () => this.#listener;
    const flowOf = () => this.#flow;
    const ttlMs = settings.ttlMs;
    const timeoutMs = Math.max(200, Math.floor(ttlMs / 3));
    const client = etcdClient(settings.etcd, timeoutMs);
    const keys = new ClusterKeys(settings.prefix.endsWith('/') ? settings.prefix : `${settings.prefix}/`);
    this.client = client;
    this.keys = keys;
    this.rejected = new RejectedValues(log);
    const context: ClusterContext = { client, keys, timeoutMs, log, rejected: this.rejected };
    this.renewer = new LeaseRenewer(settings.etcd, Math.max(50, Math.floor(ttlMs / 9)));
    this.membership = new Membership({ ...context, member: settings.member, ttlMs, renewer: this.renewer });
    let snapshots: EtcdSnapshots | undefined;
    let budget: GlobalBudget | undefined;
    let details: SharedDetails | undefined;
    this.ownership = new Ownership({
      ...context,
      membership: this.membership,
      // Before a batch is driven: each node's snapshot from etcd, and the disruption slot its last owner left
      // it; the batch's reads all in flight at once (one round trip's time for the batch, not one per node).
      prepare: async (nodes) => {
        await Promise.all(nodes.flatMap((node) => [snapshots?.prime(node), details?.load(node)]));
        await Promise.all(nodes.map((node) => budget?.adopt(node)));
      },
      onChange: (nodes) => hooks().rescope(nodes),
      // Taken and started first: nodes whose last owner left them short of verified on their desired revision.
      // Not before the statuses were first read (a member just started knows nothing of any node): else every
      // node it takes back goes first, and a failover's node later waits behind them all (issue 19).
      takeFirst: (node) => {
        if (this.shared.counts.fullReads === 0) return false;
        const record = this.shared.elsewhere(node);
        return record === undefined || !verifiedOnDesired(record);
      },
      ...(settings.startRate ? { startRate: settings.startRate } : {}),
    });
    const ownership = this.ownership;
    this.writes = new FencedWrites({
      ...context,
      ownerValue: (node) => ownership.ownerValue(node),
      holds: (node) => ownership.holds(node),
    });
    snapshots = new EtcdSnapshots({ ...context, writes: this.writes });
    this.snapshots = snapshots;
    details = new SharedDetails({ ...context, status, holds: (node) => ownership.holds(node), writes: this.writes });
    this.details = details;
    budget = new GlobalBudget({
      ...context,
      membership: this.membership,
      nodes: () => this.#nodes,
      owned: (node) => ownership.owners.has(node),
      flushed: (node) => this.writes.flush(node),
    });
    this.slots = budget;
    this.failures = new GlobalFailures({
      ...context,
      writes: this.writes,
      onChange: () => hooks().failuresChanged(),
      // The leader clears records of revisions no node is on any more (global-failures.ts).
      retire: {
        leads: () => this.election.isLeader(),
        // Only once this member applied it: until then its node list is another revision's (or empty).
        inForce: () => (this.revisions.applied === this.revisions.inForce ? this.revisions.inForce : undefined),
        needed: () => desiredRevisions(this.#nodes, status),
        graceMs: ttlMs,
      },
    });
    this.election = new LeaderElection({
      ...context,
      membership: this.membership,
      onChange: () => void this.revisions.kick(),
    });
    this.revisions = new RevisionInForce<R>({
      ...context,
      membership: this.membership,
      election: this.election,
      lookup: (sha) => this.#flow?.lookup(sha) ?? Promise.resolve(undefined),
      fetch: (reason) => this.#flow?.fetch(reason) ?? Promise.resolve(),
      deliver: (revision) => this.#flow?.deliver(revision) ?? Promise.resolve(),
      descends: (sha, ancestor) => this.#flow?.descends(sha, ancestor) ?? Promise.reject(new Error('no source yet')),
      lastGood: () => this.#flow?.lastGood(),
      head: () => this.#flow?.head(),
      rewindAllowed: (sha) => this.#flow?.rewindAllowed(sha) ?? false,
      get verify() {
        return flowOf()?.verify ?? true;
      },
      refuse: (revision, from) => this.#flow?.refuse(revision, from),
    });
    this.relay = new FetchRelay({ ...context, member: settings.member, onFetch: (reason) => this.#flow?.fetch(reason) });
    this.shared = new SharedStatus({
      ...context,
      status,
      ownership,
      writes: this.writes,
      known: (node) => this.#inventory.has(node),
      onVerified: (node) => hooks().wake(node),
    });
    const shared = this.shared;
    this.membership.on('resumed', () => {
      const held = this.settingsNodes().filter((n) => ownership.holds(n));
      if (held.length > 0) hooks().request(held);
    });
    this.scope = {
      drives: (node) => ownership.drives(node),
      letGo: (node) => ownership.letGo(node),
      settled: (node) => ownership.settled(node),
      startsFirst: (node) => ownership.startsFirst(node),
      elsewhere: (node) => {
        // Held here, not started yet (no entry in the reconciler, so a gate asks): it goes first, and the node
        // gated on it is woken when it settles here.
        if (ownership.holds(node)) ownership.moveFirst(node);
        const record = shared.elsewhere(node);
        return record ? { state: record.state, onDesired: verifiedOnDesired(record) } : undefined;
      },
    };
  }

  #nodes: string[] = [];
  /** The same nodes, to look one up. */
  #inventory = new Set<string>();

  /** Where the server reads the history and reports of a node another member drives. */
  get detail() {
    return this.details.source;
  }

  listen(listener: CoordinationListener): void {
    this.#listener = listener;
  }

  /** The source and intake: revisions reach intake only through the revision in force. */
  flow(flow: SourceAndIntake<R>): void {
    this.#flow = flow;
  }

  /** A head the source found goes to the revision in force (the leader writes it; every member applies only that). */
  async offer(revision: R): Promise<void> {
    this.revisions.offer(revision);
  }

  /** The nodes of the revision this member now applies. */
  applying(nodes: readonly string[]): void {
    this.#nodes = [...nodes];
    this.#inventory = new Set(nodes);
    this.ownership.setNodes(this.#nodes);
    this.shared.inventoryChanged();
  }

  /** A webhook reached this member: the others fetch too. */
  announce(reason: string): void {
    this.relay.announce(reason);
  }

  /** Fenced, or not on the revision in force yet. */
  notReady(): string | undefined {
    return this.membership.fencedReason() ?? this.revisions.waiting;
  }

  /** The host key pins every member shares, `file` their seed (host-key-pins.ts). */
  pins(file: HostKeyStore): PinStore {
    return new SharedHostKeyPins({
      client: this.client,
      keys: this.keys,
      member: this.settings.member,
      file,
      timeoutMs: Math.max(1000, this.settings.ttlMs / 3),
      log: this.log,
    });
  }

  settingsNodes(): string[] {
    return this.#nodes;
  }

  /** Joins (a lease, the member key) and starts taking nodes. */
  async start(url: string): Promise<void> {
    await this.#checkCredentials();
    this.membership.options.url = url;
    await this.membership.start();
    this.ownership.start(this.settings.ttlMs / 3);
    this.shared.start(Math.min(1000, this.settings.ttlMs / 3));
    this.details.start();
    this.relay.start(Math.min(1000, this.settings.ttlMs / 3));
    this.election.start(this.settings.ttlMs / 3);
    this.failures.start(Math.min(1000, this.settings.ttlMs / 3));
    this.revisions.start(Math.min(1000, this.settings.ttlMs / 3));
  }

  /**
   * With etcd auth, one read of the prefix first: a password or a role etcd refuses will never work, and is said in
   * one line (GC_CLUSTER_AUTH) instead of a member that retries for ever. An etcd that does not answer yet is no
   * such refusal: the member starts and joins once it does.
   */
  async #checkCredentials(): Promise<void> {
    const { auth } = this.settings.etcd;
    if (!auth) return;
    const refused = await within(this.client.get(this.keys.inForce()).exec(), Math.max(1000, this.settings.ttlMs / 3), 'credentials').then(
      () => undefined,
      (err: Error) => (err instanceof EtcdAuthenticationFailedError || err instanceof EtcdPermissionDeniedError ? err : undefined),
    );
    if (!refused) return;
    const why =
      refused instanceof EtcdPermissionDeniedError
        ? `may not read ${this.keys.prefix} (its role's permissions)`
        : 'was refused (user or password)';
    throw errors.GC_CLUSTER_AUTH(`cluster: etcd user ${auth.username} ${why}: ${refused.message.split('\n')[0]}`);
  }

  /** This member as /metrics shows it. */
  readonly probe = (): MemberProbe => {
    const age = this.membership.renewalAgeMs;
    return {
      member: this.settings.member,
      leader: this.election.isLeader(),
      ownedNodes: this.#nodes.filter((n) => this.ownership.holds(n)).length,
      leaseAgeSeconds: Number.isFinite(age) ? age / 1000 : -1,
      waiting: this.revisions.waiting !== undefined,
      rejectedValues: this.rejected.counts(),
    };
  };

  /** This member may send commands to `node` now: it owns it, and renewed its lease less than TTL/2 ago. */
  mayChange(node: string): boolean {
    return this.membership.mayIssue() && this.ownership.holds(node);
  }

  /**
   * Throws GC_CLUSTER_FENCED unless this member may change `node` now. Waits first until the node's state
   * written so far is in etcd: the next owner resumes from what was recorded before this command.
   */
  async guard(node: string): Promise<void> {
    // Fenced: refused at once, not after waiting for writes that cannot land until the fence opens.
    const early = this.membership.fencedReason();
    if (early) throw errors.GC_CLUSTER_FENCED(`${node}: ${early}`);
    const recorded = await this.writes.flush(node);
    const fenced = this.membership.fencedReason();
    const refused = fenced
      ? `${node}: ${fenced}`
      : !this.ownership.holds(node)
        ? `${node}: member ${this.settings.member} does not own it`
        : !recorded
          ? `${node}: its state could not be recorded in etcd; nothing sent until it is`
          : undefined;
    if (!refused) return;
    this.log.debug({ node, refused }, 'cluster: command not sent');
    throw errors.GC_CLUSTER_FENCED(refused);
  }

  /** Gives every node back (the lease revoked): the other members take them over at once. */
  async stop(): Promise<void> {
    this.ownership.stop();
    this.shared.stop();
    this.details.stop();
    this.relay.stop();
    this.election.stop();
    this.failures.stop();
    this.revisions.stop();
    await this.membership.stop();
    this.client.close();
    this.renewer.close();
    this.log.info('cluster: left');
  }
}
