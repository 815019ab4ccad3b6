// What one sync of a node decides, read top to bottom as guard clauses (controller-runtime's `Reconcile` returns
// its `Result`; here the reconciler's `#carryOut` does what was decided, and nothing else decides). Reads only:
// the revision in force, the node's spec and record, its scope, whether it was asked to pass. Before it, the sync
// follows up the node's last settle (`decideSettle`), which the projection of its snapshot only noted.

import type { NodeSpec } from '../inventory/desired-state.js';
import type { RoleInput } from '../roles/input.js';
import type { NodeRecord } from './node-record.js';
import { running } from './node-status.js';

/** What a node needs from its machine once it may run: a new machine, or a live one told what changed. */
export type StartDecision =
  | { do: 'spawn'; spec: NodeSpec; role: RoleInput; digest: string }
  | {
      do: 'update';
      entry: NodeRecord;
      spec: NodeSpec;
      /** `new`: a new desired state (role input and digest); `mode`: only its mode or pause changed. */
      desired: { role: RoleInput; digest: string } | 'mode' | undefined;
      /** A full pass asked for (`groundcrew reconcile`, a gate's wake). */
      request: boolean;
      /** The periodic resync looks again. */
      resync: boolean;
    };

export type SyncDecision =
  /** No revision in force yet, or stopping: nothing at all. */
  | { do: 'idle' }
  /** Nothing to change (its place in the run window, if it was let through, goes back unless it runs). */
  | { do: 'nothing' }
  /** Not this process's node (any more): stopped now (`no`) or once settled (`hand-over`). */
  | { do: 'let-go'; entry: NodeRecord | undefined; scope: 'hand-over' | 'no' }
  /** Gone from the inventory: deconfigured or orphaned, as the revision's removal policy says. */
  | { do: 'remove'; entry: NodeRecord; policy: 'orphan' | 'deconfigure' }
  /** Gone from the inventory before it started here (shown pending): left as it is. */
  | { do: 'orphan' }
  /** It would leave a settled state: first a place in the run window (else shown waiting), then `start`. */
  | { do: 'take-place'; start: StartDecision; shownWaiting: 'fresh' | 'new-desired' | undefined }
  | StartDecision;

export interface SyncView {
  revision: { sha: string; removalPolicy: 'orphan' | 'deconfigure' } | undefined;
  spec: NodeSpec | undefined;
  entry: NodeRecord | undefined;
  scope: 'yes' | 'hand-over' | 'no';
  /** Asked for a full pass, or picked by the periodic resync. */
  requested: boolean;
  resynced: boolean;
  /** The status store shows it pending (it waited for a place and never started). */
  shownPending: boolean;
  /** The node's role input and its digest, from the revision in force. */
  desired: (spec: NodeSpec) => { role: RoleInput; digest: string };
}

/** One node, top to bottom: driven here? gone from the inventory? new? asked something new? asked to pass? */
export function decideSync(view: SyncView): SyncDecision {
  const { revision, spec, entry, scope } = view;
  if (!revision) return { do: 'idle' };
  if (scope !== 'yes') return { do: 'let-go', entry, scope };
  if (!spec) {
    if (entry) return { do: 'remove', entry, policy: revision.removalPolicy };
    return view.shownPending ? { do: 'orphan' } : { do: 'nothing' };
  }
  const { role, digest } = view.desired(spec);
  const start = startOf(view, spec, role, digest);
  if (running(entry)) return start;
  // It would leave a settled state now (new, asked something new, asked to pass, resynced): a place first.
  const context = entry?.actor.getSnapshot().context;
  const newDesired = !entry || digest !== entry.desired.digest;
  const changed = newDesired || context?.mode !== spec.mode || context.paused !== spec.paused;
  if (!(view.requested || view.resynced || changed)) return start;
  return { do: 'take-place', start, shownWaiting: !entry ? 'fresh' : newDesired ? 'new-desired' : undefined };
}

function startOf(view: SyncView, spec: NodeSpec, role: RoleInput, digest: string): StartDecision {
  const { entry } = view;
  if (!entry) return { do: 'spawn', spec, role, digest };
  const context = entry.actor.getSnapshot().context;
  const desired =
    digest !== entry.desired.digest ? { role, digest } : context.mode !== spec.mode || context.paused !== spec.paused ? 'mode' : undefined;
  return { do: 'update', entry, spec, desired, request: view.requested, resync: view.resynced };
}

/** A settled state the projection saw (node-status.ts `projectNode`), for the node's next sync to follow up. */
export interface Settle {
  state: 'verified' | 'stalled' | 'unreachable' | 'paused' | 'removed';
  /** The status showed another state before: the node entered this one (not a second look at it). */
  entered: boolean;
  /** Its last error's code ('' for none). */
  code: string;
  /** The revision it was asked, which a failure counts against. */
  revision: string;
}

/** Two settles before one sync: the later one, entered if either was. */
export function laterSettle(earlier: Settle | undefined, later: Settle): Settle {
  return earlier?.entered && !later.entered ? { ...later, entered: true } : later;
}

/**
 * What a settle asks beyond giving back its place and resting its actor (always): when it entered the state, its
 * run report finishes, the rollout's place is released, and the rollout hears one outcome. A node that waited on a
 * gate (GC_GATE_*) failed nothing of its own: it counts against no budget.
 */
export function decideSettle(
  settle: Settle,
  gateCodes: ReadonlySet<string>,
): { finish: boolean; outcome?: 'recovered' | 'failed' | 'removed' } {
  if (!settle.entered) return { finish: false };
  switch (settle.state) {
    case 'verified':
      return { finish: true, outcome: 'recovered' };
    case 'stalled':
    case 'unreachable':
      return gateCodes.has(settle.code) ? { finish: true } : { finish: true, outcome: 'failed' };
    case 'removed':
      return { finish: true, outcome: 'removed' };
    default:
      return { finish: true };
  }
}
