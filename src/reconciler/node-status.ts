// A node's status as the status page shows it, projected from its machine's snapshot; a phase's outcome into
// its run report.

import { FAILING, type MachineState, type RebootStep, SETTLED } from '../node-state.js';
import { observedVersions } from '../roles/observed-versions.js';
import type { PhaseOutcome } from '../roles/phase.js';
import type { RunPhaseInput } from '../state-machines/node-machine.js';
import { type NodeRecord, type NodeSnapshot, noteVersions } from './node-record.js';
import { type SavedNode, SNAPSHOT_VERSION } from './saved-node.js';
import type { NodeStatus, StatusStore } from './status-store.js';
import type { Settle } from './sync-decision.js';

/** What is saved of a node: its checked form (saved-node.ts), the machine's snapshot as the actor persists it. */
export type SavedRecord = Omit<SavedNode, 'snapshot'> & { snapshot: unknown };

/** The state a snapshot shows, as the status page names them, with its phase (converging) or its reboot step (rebooting). */
export function where(snapshot: NodeSnapshot): { state: MachineState; phase?: string; reboot?: RebootStep } {
  const value = snapshot.value;
  // An actor in error state has no value: it is stuck until it is replaced, as a stalled node is.
  if (snapshot.status === 'error' || value === undefined || value === null) return { state: 'stalled' };
  // The machine's values are its state names (test/unit/state-machines/node-states.test.ts).
  if (typeof value === 'string') return { state: value as MachineState };
  const [state, sub] = (Object.entries(value as Record<string, unknown>)[0] ?? ['stalled', undefined]) as [MachineState, unknown];
  if (state === 'converging') return { state, phase: snapshot.context.phases[snapshot.context.phaseIndex] ?? '' };
  // The rebooting state is the machine's one other compound state (node-states.test.ts).
  return { state, ...(state === 'rebooting' && typeof sub === 'string' ? { reboot: sub as RebootStep } : {}) };
}

/** The node's status from its snapshot, and the line the timeline gets when it enters a failing state. */
export function nodeStatus(
  entry: NodeRecord,
  snapshot: NodeSnapshot,
): { status: Partial<NodeStatus> & Pick<NodeStatus, 'name' | 'state'>; detail?: string } {
  const { state, phase, reboot } = where(snapshot);
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
      reboot,
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

/**
 * The projection of one snapshot of the node's machine: what is saved of the node (restored after a restart), its
 * status with the timeline's line when the state changed from `shownBefore`, and, in a settled state, the settle
 * its next sync follows up. Decides nothing else: what follows a settle is the sync's (sync-decision.ts).
 */
export function projectNode(
  entry: NodeRecord,
  snapshot: NodeSnapshot,
  shownBefore: string | undefined,
): { saved: SavedRecord; status: Partial<NodeStatus> & Pick<NodeStatus, 'name' | 'state'>; detail?: string; settle?: Settle } {
  const { desired, observed } = entry;
  const saved: SavedRecord = {
    version: SNAPSHOT_VERSION,
    digest: desired.digest,
    revision: desired.revision,
    snapshot: entry.actor.getPersistedSnapshot(),
    ...(observed ? { observed } : {}),
  };
  const { status, detail } = nodeStatus(entry, snapshot);
  const { state } = status;
  const entered = state !== shownBefore;
  const settled = SETTLED.has(state) ? (state as Settle['state']) : undefined;
  const settle = settled && { state: settled, entered, code: snapshot.context.lastError?.code ?? '', revision: desired.revision };
  return { saved, status, ...(entered && detail ? { detail } : {}), ...(settle ? { settle } : {}) };
}

/** A phase's outcome into the node's run report, and the versions it observed into its status. */
export function recordPhase(
  status: StatusStore,
  entry: NodeRecord | undefined,
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
    noteVersions(entry, observed);
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
export function running(entry: NodeRecord | undefined): boolean {
  return entry !== undefined && !SETTLED.has(where(entry.actor.getSnapshot()).state);
}
