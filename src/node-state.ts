// The states a node is shown in, in one vocabulary: its machine's top-level states (state-machines/node-machine.ts;
// test/unit/state-machines/node-states.test.ts checks the two agree) and `orphaned` (left as it is after it left
// the inventory: it has no machine). One union, and the named subsets every other place uses.

export const MACHINE_STATES = [
  'pending',
  'converging',
  'rebooting',
  'backoff',
  'stalled',
  'unreachable',
  'verified',
  'paused',
  'removing',
  'removed',
] as const;

export type MachineState = (typeof MACHINE_STATES)[number];
export type NodeState = MachineState | 'orphaned';

/** Every state: verified first, then as a node meets them (the order `groundcrew completion` offers them in). */
export const NODE_STATES: readonly NodeState[] = ['verified', ...MACHINE_STATES.filter((s) => s !== 'verified'), 'orphaned'];

const subset = (...states: NodeState[]): ReadonlySet<string> => new Set(states);

/** How the page colours a state: healthy, at work, stuck (someone must act), or set aside. */
export type StateGroup = 'healthy' | 'busy' | 'stuck' | 'aside';

/**
 * Each state's colour group and its place in the page's summary (trouble first). A Record over NodeState: a state
 * added to the machine and not here is a compile error, so every list derived from it stays whole.
 */
const STATE_TABLE: Record<NodeState, { group: StateGroup; order: number }> = {
  stalled: { group: 'stuck', order: 0 },
  unreachable: { group: 'stuck', order: 1 },
  backoff: { group: 'busy', order: 2 },
  converging: { group: 'busy', order: 3 },
  rebooting: { group: 'busy', order: 4 },
  pending: { group: 'busy', order: 5 },
  removing: { group: 'busy', order: 6 },
  verified: { group: 'healthy', order: 7 },
  paused: { group: 'aside', order: 8 },
  orphaned: { group: 'aside', order: 9 },
  removed: { group: 'aside', order: 10 },
};

/** The colour group of a state (a value that is no state, from a hostile record, counts as busy). */
export const groupOfState = (state: string): StateGroup => STATE_TABLE[state as NodeState]?.group ?? 'busy';

/** The order the page's summary lists states in: trouble first. */
export const SUMMARY_ORDER: readonly NodeState[] = (Object.keys(STATE_TABLE) as NodeState[]).sort(
  (a, b) => STATE_TABLE[a].order - STATE_TABLE[b].order,
);

/** Where a machine stops until something asks again: its place in the run window is given back. */
export const SETTLED = subset('verified', 'stalled', 'unreachable', 'paused', 'removed');
/** Settled states a node's actor rests in (a removed node is forgotten instead). */
export const RESTING = subset('verified', 'stalled', 'unreachable', 'paused');
/** Where the last error is what holds the node back; elsewhere it is history (in the timeline). */
export const FAILING = subset('backoff', 'stalled', 'unreachable');
/**
 * Where a node is told to be in trouble (node.stalled, node.unreachable) until it is verified again, and what counts
 * against a rollout's failure budget: the page's "stuck" group.
 */
export const TROUBLED = subset('stalled', 'unreachable');
/** Where a node takes no more part in a rollout: verified (applied it, or drifted in monitor mode), or set aside. */
export const OUT_OF_ROLLOUT = subset('verified', 'paused', 'orphaned', 'removed');
/** At work on the node, or about to be: a rollout is not over while a node is in one. */
export const BUSY = subset('pending', 'converging', 'rebooting', 'backoff', 'removing');

/**
 * The steps of a reboot: the rebooting state's sub-states (state-machines/reboot-states.ts), in the order a reboot
 * takes them; node-states.test.ts checks the two agree. A node rebooting shows its step here, never as a phase.
 */
export const REBOOT_STEPS = [
  'checkingCap',
  'readingBootId',
  'recorded',
  'resuming',
  'issuing',
  // A reboot request that never left: backing off, then the boot id read again before asking again.
  'issueBackoff',
  'rereading',
  'waitingForBoot',
  'checkingReadiness',
  'settling',
  'confirming',
] as const;

export type RebootStep = (typeof REBOOT_STEPS)[number];
