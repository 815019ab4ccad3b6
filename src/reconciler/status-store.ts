// What the operator sees: every node's state, conditions, revisions, transition history and run reports,
// and every revision the source offered (accepted or rejected). The server and the CLI read only this.

import { EventEmitter } from 'node:events';
import { BUSY, type NodeState, type RebootStep } from '../node-state.js';
import type { Os } from '../os.js';
import { cut, keptErrors, SUBJECT_CHARS } from '../revision-bounds.js';
import { NodeHistory } from './node-history.js';
import { type PhaseReport, type RunReport, RunReports } from './run-reports.js';

export type { PhaseReport, RunReport } from './run-reports.js';

export interface Condition {
  type: 'Ready' | 'Reconciling' | 'Stalled' | 'SnapshotSetAside';
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface NodeStatus {
  name: string;
  address: string;
  os: Os;
  roles: string[];
  /** The node's labels (nodes/<name>.yaml), for filtering. */
  labels?: Record<string, string>;
  state: NodeState;
  /** The role phase it is in (converging). */
  phase?: string;
  /** Its reboot's step (rebooting): never a phase. */
  reboot?: RebootStep;
  /** The node's phases in order, as its machine steps through them. */
  phases: string[];
  mode: string;
  desiredRevision?: string;
  lastAttemptedRevision?: string;
  lastAppliedRevision?: string;
  desiredVersions: Record<string, string>;
  observedVersions: Record<string, string>;
  conditions: Condition[];
  lastError?: { code: string; message: string };
  /** Why the node waits (a gate, the disruption budget, a halted rollout), while it does. */
  waiting?: string;
  rebootCount: number;
  /** Its saved snapshot could not be restored at start: where it was moved and why (the node started over). */
  snapshotSetAside?: { file: string; reason: string; at: string };
  /** monitor mode: the last check found the node differs from its revision (and changed nothing). */
  drift: boolean;
  /** When the node entered its current state, and when anything about it last changed. */
  since: string;
  updatedAt: string;
}

export interface TransitionRecord {
  /** Orders records across nodes where timestamps tie. */
  seq: number;
  at: string;
  /** Set on records that are not a change of state: the node took or gave back a disruption budget slot. */
  event?: 'disruption.started' | 'disruption.ended' | 'snapshot.set-aside';
  state: NodeState;
  phase?: string;
  reboot?: string;
  revision?: string;
  detail?: string;
}

/** What became of a revision: accepted, or rejected with its problems. */
export interface IntakeVerdict {
  sha: string;
  at: string;
  accepted: boolean;
  subject?: string;
  /** The commit's author and time, when the source reads them. */
  author?: string;
  committedAt?: string;
  /** `file:line:col: message` for the first problems of a rejected revision (revision-bounds.ts: ERRORS_KEPT). */
  errors?: string[];
  /** How many problems it had in all. */
  errorCount?: number;
  /** Who signed it, when the daemon checks signatures (source.verify), or why it is not trusted. */
  signature?: { ok: boolean; kind?: 'gpg' | 'ssh'; signer?: string; key?: string; reason: string };
  /**
   * It does not descend from the revision in force (`from`): a force-push back, or another branch's commit.
   * `allowed`: an operator allowed this exact sha (`groundcrew source allow-rewind`); without it, a rewind is
   * refused under source.verify and applied (flagged) without.
   */
  rewind?: { from: string; allowed: boolean };
}

/** A node's transition history and run reports, oldest first: what its owner shares with the other members. */
export interface NodeDetail {
  history: TransitionRecord[];
  reports: RunReport[];
}

/** The same, as cheap to take as the store keeps it: finished reports as raw deflate of their JSON, oldest first. */
export interface PackedDetail {
  history: TransitionRecord[];
  finished: Buffer[];
  running?: RunReport;
}

/**
 * Where a node's history and reports come from when another process keeps them (cluster mode: etcd): the
 * node's detail, why it cannot be shown, or undefined when this process's own store has it.
 */
export type NodeDetailSource = (name: string) => Promise<NodeDetail | { unreadable: string } | undefined>;

export type StatusEvent =
  | { type: 'node'; node: NodeStatus; transition?: TransitionRecord }
  | { type: 'revision'; revision: IntakeVerdict }
  | { type: 'report'; report: RunReport };

const REVISIONS_LIMIT = 100;

export class StatusStore extends EventEmitter<{ change: [StatusEvent] }> {
  readonly #nodes = new Map<string, NodeStatus>();
  readonly #history = new NodeHistory();
  readonly #reports = new RunReports();
  readonly #revisions: IntakeVerdict[] = [];
  #seq = 0;
  #sorted: string[] | undefined;

  constructor(private readonly now: () => Date = () => new Date()) {
    super();
    this.setMaxListeners(0);
  }

  /** By name in code-point order, the order /api/nodes pages in (localeCompare cost 35-67 ms at 10,000 names). */
  list(): NodeStatus[] {
    // The names' order changes only when a node comes or goes: sorted then, looked up on every call.
    this.#sorted ??= [...this.#nodes.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return this.#sorted.map((name) => this.#nodes.get(name) as NodeStatus);
  }

  get(name: string): NodeStatus | undefined {
    return this.#nodes.get(name);
  }

  /** The node's last 200 transitions, oldest first. */
  history(name: string): TransitionRecord[] {
    return this.#history.list(name);
  }

  /** Oldest first; the newest keeps the values its resources read, older ones are summaries. */
  reports(name: string): RunReport[] {
    return this.#reports.list(name);
  }

  /** The node's history and reports together (cluster mode writes them to etcd for the other members). */
  detail(name: string): NodeDetail {
    return { history: this.history(name), reports: this.reports(name) };
  }

  /** The node's history and reports without unpacking its finished reports (cluster mode writes them to etcd often). */
  packedDetail(name: string): PackedDetail {
    return { history: this.history(name), ...this.#reports.packed(name) };
  }

  /** The node's history and reports replaced by another member's (taken over): this member's records follow them. */
  restoreDetail(name: string, detail: NodeDetail): void {
    this.#history.restore(name, detail.history);
    this.#reports.restore(name, detail.reports);
  }

  /** Whether this store keeps any history or report of the node. */
  hasDetail(name: string): boolean {
    return this.#history.has(name) || this.#reports.has(name);
  }

  /** Drops the node's history and reports, keeping its status (a node another member drives now). */
  dropDetail(name: string): void {
    this.#history.forget(name);
    this.#reports.forget(name);
  }

  revisions(): IntakeVerdict[] {
    return [...this.#revisions];
  }

  /** The revision in force: the newest accepted one. */
  current(): IntakeVerdict | undefined {
    return this.#revisions.find((r) => r.accepted);
  }

  /**
   * Merges `patch` into the node's status; a change of state or phase is a transition in its history. For a
   * `remote` node (another member drives it and keeps its history) the transition is announced, not kept.
   */
  update(
    name: string,
    patch: Partial<NodeStatus> & Pick<NodeStatus, 'name'>,
    detail?: string,
    { remote = false }: { remote?: boolean } = {},
  ): NodeStatus {
    const at = this.now().toISOString();
    const before = this.#nodes.get(name);
    const next: NodeStatus = {
      address: '',
      os: 'linux',
      roles: [],
      state: 'pending',
      phases: [],
      mode: 'autocorrect',
      desiredVersions: {},
      observedVersions: {},
      conditions: [],
      rebootCount: 0,
      drift: false,
      since: at,
      ...before,
      ...patch,
      updatedAt: at,
    };
    const moved = !before || before.state !== next.state || before.phase !== next.phase || before.reboot !== next.reboot;
    if (before && before.state !== next.state) next.since = at;
    next.conditions = conditionsOf(next);
    // A record is never changed once stored: the next change is a new record (the API's JSON cache keys on it).
    Object.freeze(next);
    if (!before) this.#sorted = undefined;
    this.#nodes.set(name, next);
    let transition: TransitionRecord | undefined;
    if (moved) {
      transition = {
        seq: ++this.#seq,
        at,
        state: next.state,
        ...(next.phase ? { phase: next.phase } : {}),
        ...(next.reboot ? { reboot: next.reboot } : {}),
        ...(next.desiredRevision ? { revision: next.desiredRevision } : {}),
        ...(detail ? { detail } : {}),
      };
      if (!remote) this.#history.push(name, transition);
    }
    this.emit('change', { type: 'node', node: next, ...(transition ? { transition } : {}) });
    return next;
  }

  /** A record in the node's history that is not a change of state. */
  note(name: string, event: NonNullable<TransitionRecord['event']>, detail: string): void {
    const node = this.#nodes.get(name);
    if (!node) return;
    const transition: TransitionRecord = {
      seq: ++this.#seq,
      at: this.now().toISOString(),
      event,
      state: node.state,
      ...(node.phase ? { phase: node.phase } : {}),
      ...(node.reboot ? { reboot: node.reboot } : {}),
      ...(node.desiredRevision ? { revision: node.desiredRevision } : {}),
      detail,
    };
    this.#history.push(name, transition);
    this.emit('change', { type: 'node', node, transition });
  }

  forget(name: string): void {
    this.#sorted = undefined;
    this.#nodes.delete(name);
    this.#history.forget(name);
    this.#reports.forget(name);
  }

  /** The run report of the node's current pass on `revision`: a new one when the pass is new. */
  report(name: string, revision: string, corrective: boolean, phase: PhaseReport): RunReport {
    const current = this.#reports.add(name, revision, corrective, phase);
    this.emit('change', { type: 'report', report: current });
    return current;
  }

  /** Closes the node's open run report with how the pass ended. */
  finishReport(name: string, result: string): void {
    const report = this.#reports.finish(name, result, this.now().toISOString());
    if (report) this.emit('change', { type: 'report', report });
  }

  recordRevision(revision: Omit<IntakeVerdict, 'at'>): IntakeVerdict {
    // Bounded whatever the commit held: the subject cut, the first errors kept and counted.
    const record: IntakeVerdict = {
      ...revision,
      ...(revision.subject !== undefined ? { subject: cut(revision.subject, SUBJECT_CHARS) } : {}),
      ...(revision.errors ? keptErrors(revision.errors) : {}),
      at: this.now().toISOString(),
    };
    this.#revisions.unshift(record);
    if (this.#revisions.length > REVISIONS_LIMIT) this.#revisions.pop();
    this.emit('change', { type: 'revision', revision: record });
    return record;
  }
}

/** Ready, Reconciling and Stalled, as kstatus reads them: one look says healthy, busy, or stuck and why. */
function conditionsOf(n: NodeStatus): Condition[] {
  const error = n.lastError ? `${n.lastError.code}: ${n.lastError.message}` : '';
  const ready = n.state === 'verified' && !n.drift && n.lastAppliedRevision !== undefined && n.lastAppliedRevision === n.desiredRevision;
  const stalled = n.state === 'stalled' || n.state === 'unreachable';
  const busy = BUSY.has(n.state);
  const step = n.phase ?? n.reboot;
  return [
    {
      type: 'Ready',
      status: ready ? 'True' : 'False',
      reason: ready
        ? 'Verified'
        : n.drift
          ? 'Drifted'
          : stalled
            ? (n.lastError?.code ?? 'Stalled')
            : n.state === 'paused'
              ? 'Paused'
              : 'Progressing',
      message: ready ? `verified at ${n.lastAppliedRevision?.slice(0, 12)}` : (n.waiting ?? error) || `${n.state}${step ? ` ${step}` : ''}`,
    },
    {
      type: 'Reconciling',
      status: busy ? 'True' : 'False',
      reason: busy ? (n.waiting ? 'Waiting' : n.state === 'backoff' ? 'RetryScheduled' : 'Progressing') : 'Idle',
      message: busy ? (n.waiting ?? `${n.state}${step ? ` ${step}` : ''}${n.state === 'backoff' && error ? `: ${error}` : ''}`) : '',
    },
    {
      type: 'Stalled',
      status: stalled ? 'True' : 'False',
      reason: stalled ? (n.lastError?.code ?? n.state) : 'None',
      message: stalled ? error : '',
    },
    ...(n.snapshotSetAside
      ? [
          {
            type: 'SnapshotSetAside' as const,
            status: 'True' as const,
            reason: 'Unrestorable',
            message: `${n.snapshotSetAside.reason}; set aside as ${n.snapshotSetAside.file} at ${n.snapshotSetAside.at}, the node started over from its facts`,
          },
        ]
      : []),
  ];
}
