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

/** Where a machine stops until something asks again: its place in the run window is given back. */
export const SETTLED = subset('verified', 'stalled', 'unreachable', 'paused', 'removed');
/** Settled states a node's actor rests in (a removed node is forgotten instead). */
export const RESTING = subset('verified', 'stalled', 'unreachable', 'paused');
/** Where the last error is what holds the node back; elsewhere it is history (in the timeline). */
export const FAILING = subset('backoff', 'stalled', 'unreachable');
/** Where a node is told to be in trouble (node.stalled, node.unreachable) until it is verified again. */
export const TROUBLED = subset('stalled', 'unreachable');
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
