// What the snapshot store keeps per node, and the check a saved node passes before its machine is restored
// from it. xstate's createActor does not refuse a snapshot it cannot use: it makes an actor in error state,
// and that actor's empty value then breaks every resync. So nothing from disk reaches createActor unchecked.

import type { AnyStateMachine } from 'xstate';
import { z } from 'zod';
import { MODES } from '../inventory/schema.js';
import type { NodeSnapshots } from './snapshot-store.js';

/** Bumped whenever the machine's states or context change in a way an older snapshot cannot follow. */
export const SNAPSHOT_VERSION = 1;

const count = z.number().int().nonnegative();
const names = z.array(z.string());

/** The context fields the node machine reads: a snapshot missing one would fail mid-pass, not at restore. */
const NodeContextSchema = z.looseObject({
  node: z.string(),
  revision: z.string(),
  phases: names,
  rebootBatch: names,
  mode: z.enum(MODES),
  paused: z.boolean(),
  limits: z.object({
    maxRebootsPerRevision: count,
    maxConnectAttempts: count,
    rebootTimeoutMs: count,
    settleMs: count,
    backoffBaseMs: count,
    backoffMaxMs: count,
  }),
  phaseIndex: count,
  pendingReboot: z.boolean(),
  rebootedPhases: names,
  requestedBy: names,
  rebootsThisRevision: count,
  previousBootId: z.string().optional(),
  newBootId: z.string().optional(),
  attempt: count,
  connectFailures: count,
  dryRun: z.boolean(),
  drift: z.boolean(),
  lastError: z.object({ code: z.string(), message: z.string(), retryable: z.boolean() }).optional(),
  lastAttemptedRevision: z.string().optional(),
  lastAppliedRevision: z.string().optional(),
});

/** A state value: `verified`, or `{ rebooting: 'waitingForBoot' }` (the node machine nests one level). */
const StateValueSchema = z.union([z.string(), z.record(z.string(), z.string())]);

// Loose: xstate's own fields (historyValue, children) pass through untouched.
const PersistedSnapshotSchema = z.looseObject({
  // A snapshot saved from an actor in error state holds nothing to resume.
  status: z.enum(['active', 'done']),
  value: StateValueSchema,
  context: NodeContextSchema,
});

const SavedNodeSchema = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  digest: z.string(),
  revision: z.string(),
  snapshot: PersistedSnapshotSchema,
  /** The versions its last verify phase saw: the status page shows them after a restart too. */
  observed: z.record(z.string(), z.string()).optional(),
});

/** What the snapshot store keeps per node: the machine's snapshot and what it was asked to be. */
export type SavedNode = z.infer<typeof SavedNodeSchema>;

export type SavedCheck = { ok: true; saved: SavedNode } | { ok: false; reason: string };

/**
 * A phase by its current name. The last phase was `verified` until issue 31 renamed it `verify` (so that verified
 * is only a state); a snapshot saved before names it the old way, with the same digest, and the plan has no such
 * phase any more.
 */
function currentPhase(name: string): string {
  return name === 'verified' ? 'verify' : name;
}

/** Whether `machine` can be restored from `raw` (a saved node as read from disk); if not, why, in one line. */
export function checkSaved(raw: unknown, machine: AnyStateMachine): SavedCheck {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, reason: 'not a JSON object' };
  const version = (raw as { version?: unknown }).version;
  if (version !== SNAPSHOT_VERSION) {
    const found = version === undefined ? 'no version (saved before snapshots were versioned)' : `version ${JSON.stringify(version)}`;
    return { ok: false, reason: `expected snapshot version ${SNAPSHOT_VERSION}, found ${found}` };
  }
  const parsed = SavedNodeSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(top)';
    return { ok: false, reason: `wrong shape at ${where}: ${issue?.message ?? 'invalid'}` };
  }
  const { value, context } = parsed.data.snapshot;
  for (const list of ['phases', 'rebootBatch', 'rebootedPhases', 'requestedBy'] as const) context[list] = context[list].map(currentPhase);
  try {
    machine.resolveState({ value, context });
  } catch {
    return { ok: false, reason: `state ${JSON.stringify(value)} is not a state of this groundcrew's node machine` };
  }
  return { ok: true, saved: parsed.data };
}

/** A node's saved state as the reconciler restores it: a checked snapshot, or the file it was set aside as. */
export interface Restore {
  saved?: SavedNode;
  setAside?: { file: string; reason: string };
}

/** Reads and checks `node`'s snapshot; one `machine` cannot restore is set aside, never restored, never fatal. */
export function loadSaved(store: NodeSnapshots, node: string, machine: AnyStateMachine): Restore {
  const { saved, setAside } = store.load(node);
  if (setAside) return { setAside };
  if (saved === undefined) return {};
  const check = checkSaved(saved, machine);
  if (check.ok) return { saved: check.saved };
  return { setAside: { file: store.setAside(node, check.reason), reason: check.reason } };
}
