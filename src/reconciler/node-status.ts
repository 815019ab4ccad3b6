// A node's entry in the reconciler, what is saved of it, and its status as the status page shows it,
// projected from the machine's snapshot.

import type { Logger } from 'pino';
import type { Actor, SnapshotFrom } from 'xstate';
import type { NodeSpec } from '../inventory/desired-state.js';
import { FAILING, type MachineState, SETTLED } from '../node-state.js';
import type { RoleInput } from '../roles/input.js';
import { observedVersions } from '../roles/observed-versions.js';
import type { PhaseOutcome } from '../roles/phase.js';
import type { Gate } from '../roles/plan.js';
import type { NodeEvent, nodeMachine, RunPhaseInput } from '../state-machines/node-machine.js';
import type { DesiredNode } from './desired-node.js';
import type { NodeRuntime } from './node-actors.js';
import type { NodeStatus, StatusStore } from './status-store.js';

export type NodeActor = Actor<typeof nodeMachine>;
export type NodeSnapshot = SnapshotFrom<typeof nodeMachine>;

/** What the reconciler asks of a node's machine: its live actor, or a settled node's snapshot (dormant-node.ts). */
export interface NodeHandle {
  getSnapshot(): NodeSnapshot;
  getPersistedSnapshot(): unknown;
  send(event: NodeEvent): void;
  stop(): void;
}

/** A node the reconciler knows: what it is asked to be (replaced whole), how it is reached, its machine. */
export interface Entry {
  readonly name: string;
  /** What the node is asked to be (desired-node.ts), replaced as a unit when that changes. */
  desired: DesiredNode;
  /** How the node is reached (its executor, durable), kept while the node is known. */
  reach: Pick<NodeRuntime, 'exec' | 'poll'>;
  /** What its machine runs on, built when an actor first asks, dropped when the node rests (node-runtime.ts). */
  runtime?: NodeRuntime;
  actor: NodeHandle;
  log: Logger;
  observed?: Record<string, string>;
}

/** The state and phase a snapshot shows, as the status page names them. */
export function where(snapshot: NodeSnapshot): { state: MachineState; phase?: string } {
  const value = snapshot.value;
  // An actor in error state has no value: it is stuck until it is replaced, as a stalled node is.
  if (snapshot.status === 'error' || value === undefined || value === null) return { state: 'stalled' };
  // The machine's values are its state names (test/unit/state-machines/node-states.test.ts).
  if (typeof value === 'string') return { state: value as MachineState };
  const [state, sub] = (Object.entries(value as Record<string, unknown>)[0] ?? ['stalled', undefined]) as [MachineState, unknown];
  if (state === 'converging') return { state, phase: snapshot.context.phases[snapshot.context.phaseIndex] ?? '' };
  return { state, ...(typeof sub === 'string' ? { phase: sub } : {}) };
}

/** The node's status from its snapshot, and the line the timeline gets when it enters a failing state. */
export function nodeStatus(
  entry: Entry,
  snapshot: NodeSnapshot,
): { status: Partial<NodeStatus> & { name: string; state: string }; detail?: string } {
  const { state, phase } = where(snapshot);
  const context = snapshot.context;
  const error = context.lastError && FAILING.has(state) ? { code: context.lastError.code, message: context.lastError.message } : undefined;
  return {
    status: {
      name: entry.name,
      address: entry.desired.spec.address,
      os: entry.desired.spec.os,
      roles: [...entry.desired.spec.roles],
      labels: { ...entry.desired.spec.labels },
      state,
      phase,
      phases: context.phases,
      mode: context.mode,
      desiredRevision: entry.desired.revision,
      lastAttemptedRevision: context.lastAttemptedRevision,
      lastAppliedRevision: context.lastAppliedRevision,
      desiredVersions: Object.fromEntries(Object.entries(entry.desired.spec.versions).map(([k, v]) => [k, v.version])),
      lastError: error,
      rebootCount: context.rebootsThisRevision,
      drift: context.drift,
      ...(SETTLED.has(state) ? { waiting: undefined } : {}),
    },
    ...(error ? { detail: `${error.code}: ${error.message}` } : {}),
  };
}

/** A phase's outcome into the node's run report, and the versions it observed into its status. */
export function recordPhase(
  status: StatusStore,
  entry: Entry | undefined,
  name: string,
  outcome: PhaseOutcome,
  input: RunPhaseInput,
): void {
  status.report(name, input.revision, input.corrective, {
    phase: outcome.phase,
    resources: outcome.resources,
    commands: outcome.commands,
    durationMs: Math.round(outcome.durationMs),
    at: new Date().toISOString(),
  });
  const observed = entry ? observedVersions(entry.desired.spec.os, outcome) : undefined;
  if (entry && observed) {
    entry.observed = observed;
    status.update(name, { name, observedVersions: observed });
  }
}

/** The states a resync moves a node out of (the machine ignores it elsewhere, or restarts a converging pass). */
export function resyncs(snapshot: NodeSnapshot): boolean {
  if (snapshot.status === 'error') return false;
  const { state } = where(snapshot);
  return state === 'verified' || state === 'stalled' || state === 'unreachable';
}

/** The node's machine is out of a settled state (it holds a place in the run window). */
export function running(entry: Entry | undefined): boolean {
  return entry !== undefined && !SETTLED.has(where(entry.actor.getSnapshot()).state);
}
