// The reconciler: takes validated revisions and drives one node machine per node toward them. Events
// (a revision, a reconcile request, a resync) only mark nodes dirty; the work queue then syncs each node
// from the revision in force, never from what the event carried.

import pino, { type Logger } from 'pino';
import { Limiter } from '../dataplane/limiter.js';
import type { DesiredState, NodeSpec } from '../inventory/desired-state.js';
import type { RoleInput } from '../roles/input.js';
import { type Limits, type NodeMachineInput, nodeMachine } from '../state-machines/node-machine.js';
import type { Coordination } from './coordination.js';
import { sharedInputs } from './cross-node.js';
import { type DesiredNode, desiredNode, withRevision, withSpec } from './desired-node.js';
import { restNode } from './dormant-node.js';
import { GateDependents } from './gate-dependents.js';
import { GATE_CODES, wakeDependents } from './gates.js';
import { localCoordination } from './local-coordination.js';
import { type NodeRuntime, sharedNodeActors } from './node-actors.js';
import { type LaunchHooks, launchNode, restoreNode } from './node-launch.js';
import { desire, type NodeAccess, type NodeRecord, type NodeSnapshot, newRecord, runtimeOf } from './node-record.js';
import { fencedAccess, nodeRuntime } from './node-runtime.js';
import { projectNode, resyncs, running } from './node-status.js';
import { type ObservedPlan, observePlans } from './observed-plan.js';
import { inputDigest, type RoleEnvironment, roleInput, touched } from './role-input.js';
import { type Rollout, shownRollout } from './rollout.js';
import { RunWindow, showWaiting } from './run-window.js';
import { loadSaved, type Restore, type SavedNode } from './saved-node.js';
import { whenSettled } from './settled.js';
import type { StatusStore } from './status-store.js';
import { decideSettle, decideSync, laterSettle, type Settle, type SyncDecision } from './sync-decision.js';
import { budgetOf, WorkQueue } from './work-queue.js';

const NO_GATES: ReadonlySet<string> = new Set();

/** A validated revision: the commit and what it asks of every node. */
type InForce = { sha: string; state: DesiredState };

export interface ReconcilerOptions {
  status: StatusStore;
  access: (node: NodeSpec) => NodeAccess;
  /**
   * Which nodes this process drives, the budgets beyond it, where snapshots live, the fence (coordination.ts):
   * the single process's by default, snapshots not kept.
   */
  coordination?: Coordination;
  limits?: Partial<Limits>;
  /** Phases running at once across the cluster. */
  concurrency?: number;
  /** Node machines running (out of a settled state) at once (run-window.ts); 4 x concurrency by default, 0: all. */
  runWindow?: number;
  /** How often settled nodes are checked again (monitor, autocorrect; stalled nodes retry); 0: never. */
  resyncMs?: number;
  log?: Logger;
  /** What roles need from the control host (kubelet.exe by version). */
  roles?: RoleEnvironment;
}

export class Reconciler {
  readonly #entries = new Map<string, NodeRecord>();
  /** Which of the entries wait on which node (their desired gates), kept with every change of an entry's desired part. */
  readonly #dependents = new GateDependents();
  readonly #queue: WorkQueue;
  readonly #workers: Limiter;
  readonly #rollout: Rollout;
  readonly #requested = new Set<string>();
  /** Settled nodes the periodic resync looks at again once they hold a place in the run window. */
  readonly #resyncs = new Set<string>();
  /** Settles the projection saw, each followed up by its node's next sync. */
  readonly #settles = new Map<string, Settle>();
  readonly #window: RunWindow;
  readonly #log: Logger;
  readonly #coordination: Coordination;
  /** One provided machine for every node: its actors find the node's runtime by name. */
  readonly #machine = nodeMachine.provide({ actors: sharedNodeActors((name) => this.#runtimeOf(name)) });
  #revision?: InForce;
  #specs = new Map<string, NodeSpec>();
  #shared?: string; // what every node reads from the revision beyond its own spec (cross-node.ts sharedInputs)
  #resync?: NodeJS.Timeout;
  #stopped = false;

  constructor(private readonly options: ReconcilerOptions) {
    this.#log = options.log ?? pino({ level: 'silent' });
    this.#coordination = options.coordination ?? localCoordination();
    // One worker limit: at most `concurrency` nodes run a phase at once, and the work queue syncs (reads the
    // revision, sends the machine its desired state) at most as many nodes at once.
    const concurrency = options.concurrency ?? 32;
    this.#workers = new Limiter(concurrency);
    this.#window = new RunWindow(options.runWindow ?? 4 * concurrency, (name) => this.#queue.add(name));
    this.#rollout = shownRollout(options.status, this.#coordination, (node) => this.#entries.has(node));
    this.#queue = new WorkQueue(
      concurrency,
      async (name) => this.#sync(name),
      (name, err) => this.#log.error({ err, node: name }, 'sync failed'),
    );
    this.#coordination.listen({
      rescope: (nodes) => this.#rescope(nodes),
      wake: (node) => wakeDependents(node, this.#entries, this.#dependents, (other) => this.request([other])),
      request: (nodes) => this.request(nodes),
      failuresChanged: () => this.#rollout.refresh(),
    });
    if (options.resyncMs) {
      this.#resync = setInterval(() => this.resync(), options.resyncMs);
      this.#resync.unref();
    }
  }

  get revision(): InForce | undefined {
    return this.#revision;
  }

  get rollout(): Rollout {
    return this.#rollout;
  }

  /** A new validated revision: every node it touches (role-input.ts `touched`), named or no longer named, is synced. */
  apply(revision: InForce): void {
    this.#coordination.applying(revision.state.nodes.map((n) => n.name));
    const before = { specs: this.#specs, shared: this.#shared };
    const now = { specs: new Map(revision.state.nodes.map((n) => [n.name, n])), shared: sharedInputs(revision.state) };
    [this.#revision, this.#specs, this.#shared] = [revision, now.specs, now.shared];
    const { rollout, nodes } = revision.state;
    this.#rollout.configure(budgetOf(rollout.maxUnavailable, nodes.length), budgetOf(rollout.failureBudget, nodes.length));
    for (const name of new Set([...now.specs.keys(), ...this.#entries.keys()]))
      if (!this.#entries.has(name) || touched(name, before, now)) this.#queue.add(name);
  }

  /** `groundcrew reconcile`: a full pass on the named nodes (all when none are named), now. */
  request(nodes: string[] = []): string[] {
    const names = nodes.length > 0 ? nodes.filter((n) => this.#specs.has(n)) : [...this.#specs.keys()];
    for (const name of names) {
      this.#requested.add(name);
      this.#queue.add(name);
    }
    return names;
  }

  /**
   * What a pass would do now on each node (all when none are named): every phase tested against the
   * node's facts, nothing changed. Phases after one that differs may read facts that are not there yet.
   */
  async plan(nodes: string[] = []): Promise<ObservedPlan[]> {
    if (!this.#revision) return [];
    const accessOf = (name: string) => {
      const [entry, spec] = [this.#entries.get(name), this.#specs.get(name)];
      return entry && spec ? { spec, exec: entry.access.exec } : undefined;
    };
    const names = nodes.length > 0 ? nodes : [...this.#specs.keys()];
    return observePlans(names, accessOf, this.#revision.state, this.#workers, this.options.roles);
  }

  /** The periodic check: settled nodes test again (and, per their mode, correct drift or retry), through the run window. */
  resync(): void {
    for (const [name, entry] of this.#entries) {
      // One node's failure stays that node's: the timer runs this, and a throw here would end the process.
      try {
        const snapshot = entry.actor.getSnapshot();
        // Verified in apply mode, the machine looks again only on a new revision: it needs no place.
        if (resyncs(snapshot) && !(snapshot.context.mode === 'apply' && snapshot.matches('verified'))) {
          this.#resyncs.add(name);
          this.#queue.add(name);
        }
      } catch (err) {
        entry.log.error({ err }, 'resync failed for this node');
      }
    }
  }

  /** Resolves once every node of the revision has settled on it (verified, stalled, unreachable or paused). */
  settled(): Promise<void> {
    return whenSettled({
      queue: this.#queue,
      status: this.options.status,
      hasRevision: () => this.#revision !== undefined && !this.#window.starting,
      specs: () => this.#specs,
      entries: this.#entries,
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#resync) clearInterval(this.#resync);
    await this.#queue.stop();
    this.#window.clear();
    for (const entry of this.#entries.values()) entry.actor.stop();
    await Promise.all([...this.#entries.values()].map((e) => e.access.exec.close()));
  }

  /** The scope changed: these nodes (none named: every node) are looked at again. */
  #rescope(nodes?: readonly string[]): void {
    for (const name of nodes ?? new Set([...this.#specs.keys(), ...this.#entries.keys()])) this.#queue.add(name);
  }

  /** One node: its last settle followed up, then what to do is decided (sync-decision.ts) and done here. */
  async #sync(name: string): Promise<void> {
    const settle = this.#settles.get(name);
    this.#settles.delete(name);
    if (settle && !this.#stopped) this.#followUp(name, settle);
    const revision = this.#stopped ? undefined : this.#revision;
    const entry = this.#entries.get(name);
    const decision = decideSync({
      revision: revision && { sha: revision.sha, removalPolicy: revision.state.rollout.removalPolicy },
      spec: this.#specs.get(name),
      entry,
      scope: this.#coordination.scope.drives(name),
      requested: this.#requested.has(name),
      resynced: this.#resyncs.has(name),
      shownPending: this.options.status.get(name)?.state === 'pending',
      desired: (spec) => {
        const role = roleInput((revision as InForce).state, spec, this.options.roles);
        return { role, digest: inputDigest(role) };
      },
    });
    if (decision.do === 'idle' || !revision) return;
    if (decision.do === 'take-place') {
      // Waits for a place unless one is free: shown pending (new) or with its new desired revision meanwhile.
      if (!this.#window.enter(name, this.#coordination.scope.startsFirst(name))) {
        const { start, shownWaiting } = decision;
        if (shownWaiting) showWaiting(this.options.status, start.spec, shownWaiting === 'fresh', revision.sha, this.#window.counts);
        return;
      }
    }
    try {
      this.#carryOut(name, decision.do === 'take-place' ? decision.start : decision, revision);
    } finally {
      // A place it was let through to is given back unless it now runs.
      this.#window.synced(name, running(this.#entries.get(name)));
    }
  }

  /** The one place a sync's decision is carried out. */
  #carryOut(name: string, decision: Exclude<SyncDecision, { do: 'idle' | 'take-place' }>, revision: InForce): void {
    switch (decision.do) {
      case 'nothing':
        break;
      case 'let-go':
        this.#leave(name, decision.entry, decision.scope);
        break;
      case 'remove':
        this.#remove(decision.entry, decision.policy, revision.sha);
        break;
      case 'orphan':
        this.#orphan(name, 'before it started here');
        break;
      case 'spawn':
        this.#spawn(revision, decision.spec, decision.role, decision.digest);
        this.#requested.delete(name);
        this.#resyncs.delete(name);
        break;
      case 'update':
        this.#update(decision, revision.sha);
        break;
    }
  }

  /** A live machine told what changed: a new desired state, or its mode; then a pass asked for, or a resync. */
  #update({ entry, spec, desired, request, resync }: Extract<SyncDecision, { do: 'update' }>, sha: string): void {
    if (desired === 'mode') {
      this.#desire(entry, withSpec(entry.desired, spec));
      this.#reachDesired(entry);
    } else if (desired) {
      entry.log.info({ revision: sha }, 'new desired state');
      this.#desire(entry, desiredNode(spec, desired.role, desired.digest, sha));
      this.#reachDesired(entry);
    }
    const name = spec.name;
    if (request && this.#requested.delete(name)) entry.actor.send({ type: 'reconcile.requested' });
    if (resync && this.#resyncs.delete(name) && resyncs(entry.actor.getSnapshot())) entry.actor.send({ type: 'resync' });
  }

  /** The entry's desired part replaced, and the gate index with it. */
  #desire(entry: NodeRecord, desired: DesiredNode): void {
    const before = entry.desired.gates;
    desire(entry, desired);
    this.#dependents.note(entry.name, before, desired.gates);
  }

  #reachDesired(entry: NodeRecord): void {
    const { spec, revision, order } = entry.desired;
    const { mode, paused } = spec;
    entry.actor.send({ type: 'desired.changed', revision, ...order, mode, paused });
    if (!paused && entry.actor.getSnapshot().matches('paused')) entry.actor.send({ type: 'resume' });
    this.#observe(entry, entry.actor.getSnapshot());
  }

  #launch(entry: NodeRecord, input: NodeMachineInput, snapshot?: SavedNode['snapshot']): void {
    launchNode(this.#machine, entry, input, snapshot, this.#hooks(entry));
  }

  #hooks(entry: NodeRecord): LaunchHooks {
    const observe = (snap: NodeSnapshot) => this.#observe(entry, snap);
    return { observe, current: () => this.#entries.get(entry.name) === entry, status: this.options.status };
  }

  #runtimeOf(name: string): NodeRuntime {
    const entry = this.#entries.get(name);
    if (!entry) throw new Error(`no runtime for node ${name}: its machine outlived its entry`);
    const { scope } = this.#coordination;
    const deps = {
      scope,
      status: this.options.status,
      entries: this.#entries,
      window: this.#window,
      rollout: this.#rollout,
      workers: this.#workers,
    };
    return runtimeOf(entry, () => nodeRuntime(entry, deps));
  }

  #spawn(revision: InForce, spec: NodeSpec, role: RoleInput, digest: string): void {
    const name = spec.name;
    const log = this.#log.child({ node: name });
    const { snapshots, fence } = this.#coordination;
    const access = fencedAccess(spec, this.options.access, fence);
    const { saved, setAside }: Restore = loadSaved(snapshots, name, this.#machine);
    // Restored on the same digest: still asked by the commit that asked it before the restart.
    const desired = desiredNode(spec, role, digest, saved?.digest === digest ? saved.revision : revision.sha);
    const { mode, paused } = spec;
    const input = { node: name, revision: desired.revision, ...desired.order, mode, paused, limits: this.options.limits ?? {} };
    // Its actor comes from #launch below, before anything reads the entry (an actor made only to be replaced
    // would resolve the machine's initial state once more per node at start).
    const entry = newRecord({ name, desired, access, log, ...(saved?.observed ? { observed: saved.observed } : {}) });
    if (saved?.observed) this.options.status.update(name, { name, observedVersions: saved.observed });
    this.#entries.set(name, entry);
    this.#dependents.note(name, NO_GATES, desired.gates);
    const stores = { store: snapshots, status: this.options.status };
    const restored = restoreNode({ saved, setAside }, entry, input, revision.sha, stores, (snap, i) => this.#launch(entry, i, snap));
    if (!restored) return;
    const { actor } = entry;
    if (actor.getSnapshot().matches('rebooting')) this.#rollout.hold(name);
    if (restored.digest !== digest) {
      // Asked something new while groundcrew was down: that preempts whatever the node was doing.
      this.#desire(entry, withRevision(entry.desired, revision.sha));
      this.#reachDesired(entry);
    } else if (!actor.getSnapshot().matches('verified')) {
      // Verified before the restart: it still is (the periodic resync checks). Anything else resumes at
      // once: restoring is not a transition, and a pending `after` timer does not survive it.
      actor.send({ type: 'resync' });
    }
    this.#observe(entry, actor.getSnapshot());
  }

  #remove(entry: NodeRecord, policy: 'orphan' | 'deconfigure', sha: string): void {
    const name = entry.name;
    if (policy === 'deconfigure') {
      if (!entry.actor.getSnapshot().matches('removing')) {
        entry.log.info('removed from the inventory: deconfiguring');
        entry.actor.send({ type: 'node.removed', deconfigure: true, revision: sha });
      }
      return;
    }
    entry.log.info('removed from the inventory: left as it is (removalPolicy orphan)');
    this.#forget(entry);
    this.#orphan(name);
  }

  #orphan(name: string, when = ''): void {
    const detail = `removed from the inventory${when ? ` ${when}` : ''}; left as it is`;
    this.options.status.update(name, { name, state: 'orphaned', phase: undefined, waiting: undefined }, detail);
  }

  /** Not this process's node: stopped now (`no`) or once settled (`hand-over`), its snapshot kept for the next. */
  #leave(name: string, entry: NodeRecord | undefined, scope: 'hand-over' | 'no'): void {
    if (entry && scope === 'hand-over' && running(entry)) return;
    if (entry) this.#forget(entry, false);
    if (scope === 'hand-over') this.#coordination.scope.letGo(name);
  }

  #forget(entry: NodeRecord, removeSnapshot = true): void {
    const name = entry.name;
    entry.actor.stop();
    this.#entries.delete(name);
    this.#dependents.note(name, entry.desired.gates, NO_GATES);
    this.#window.remove(name);
    this.#rollout.release(name);
    if (removeSnapshot) {
      this.#coordination.snapshots.remove(name);
      // Gone from the inventory: its failures halt no rollout any more.
      this.#rollout.recovered(name);
    }
    void entry.access.exec.close();
  }

  /**
   * The projection of every snapshot of a node's machine: saved as the node's record, shown as its status. A
   * settle is only noted: the node's next sync follows it up (asked for before the status changes, so nothing
   * waiting on the status sees the queue idle first).
   */
  #observe(entry: NodeRecord, snapshot: NodeSnapshot): void {
    // An errored actor has nothing to resume and no state to show: its error observer reports it.
    if (snapshot.status === 'error') return;
    const name = entry.name;
    const { saved, status, detail, settle } = projectNode(entry, snapshot, this.options.status.get(name)?.state);
    this.#coordination.snapshots.save(name, saved);
    if (settle) {
      this.#settles.set(name, laterSettle(this.#settles.get(name), settle));
      this.#queue.add(name);
    }
    this.options.status.update(name, status, detail);
  }

  /**
   * What a settle asks, in the node's sync: its place goes to the next, the scope hears of it, its actor rests;
   * when it entered the state, its report finishes and the rollout hears the outcome (sync-decision.ts
   * `decideSettle`). A node to hand over is let go by the decision that follows in the same sync.
   */
  #followUp(name: string, settle: Settle): void {
    const entry = this.#entries.get(name);
    this.#window.settled(name);
    this.#coordination.scope.settled(name);
    if (entry) restNode(entry, this.#machine, this.#hooks(entry));
    const { finish, outcome } = decideSettle(settle, GATE_CODES);
    if (!finish) return;
    this.options.status.finishReport(name, settle.state);
    const wake = () => wakeDependents(name, this.#entries, this.#dependents, (node) => this.request([node]));
    if (outcome === 'recovered') {
      // On whatever revision it now has: a fix or revert of its pin ends the halts it caused.
      this.#rollout.recovered(name);
      wake();
    } else if (outcome === 'failed') {
      const { revision } = settle;
      if (this.#rollout.recordFailure(name, revision)) {
        this.#log.warn({ revision, failed: this.#rollout.failures(revision) }, this.#rollout.haltReason(revision));
      }
      // Nodes waiting on this one learn it failed, rather than waiting out their backoff.
      wake();
    } else if (outcome === 'removed') {
      if (entry) this.#forget(entry);
      this.options.status.update(name, { name, state: 'removed', phase: undefined }, 'deconfigured and removed from the inventory');
    }
    // After a failure is recorded: in a cluster, whoever takes the slot next sees the failure first.
    this.#rollout.release(name);
  }
}
