// The node machine's vocabulary: its context, events, limits, guards, actions and delays, and placeholder
// actors that the reconciler replaces with .provide(). No I/O here.

import { assign, fromPromise, setup } from 'xstate';
import { errors, type GroundcrewError, neverSent } from '../errors.js';
import type { Mode } from '../inventory/schema.js';

export type { Mode };

export interface ErrorInfo {
  code: string;
  message: string;
  retryable: boolean;
}

export interface RunPhaseInput {
  node: string;
  revision: string;
  phase: string;
  /** monitor mode: test only. */
  dryRun: boolean;
  /** The revision was applied before: what this pass changes is drift being corrected. */
  corrective: boolean;
}

export interface PhaseResult {
  inDesiredState: boolean;
  rebootRequested: boolean;
}

export interface Limits {
  /** Reboots one revision may take on a node (a fresh Windows node needs one). */
  maxRebootsPerRevision: number;
  /** Connection failures in a row before the node is called unreachable. */
  maxConnectAttempts: number;
  rebootTimeoutMs: number;
  settleMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxRebootsPerRevision: 2,
  maxConnectAttempts: 8,
  rebootTimeoutMs: 15 * 60_000,
  settleMs: 10_000,
  backoffBaseMs: 1_000,
  backoffMaxMs: 5 * 60_000,
};

export interface Desired {
  revision: string;
  /** Phase names in order, as the node's plan gives them. */
  phases: string[];
  /**
   * Phases whose reboot requests batch: a reboot asked by one of them waits while the next phase batches too,
   * and is taken after the last of the run (features and test signing share one reboot).
   */
  rebootBatch: string[];
  mode: Mode;
  paused: boolean;
}

export interface NodeMachineInput extends Desired {
  node: string;
  limits?: Partial<Limits>;
}

export interface NodeContext extends Desired {
  node: string;
  limits: Limits;
  phaseIndex: number;
  /** A batching phase asked for a reboot: taken after the last phase of its batch, once for all of them. */
  pendingReboot: boolean;
  /** Phases whose reboot request was already honoured in this revision: asking again is a loop. */
  rebootedPhases: string[];
  requestedBy: string[];
  rebootsThisRevision: number;
  previousBootId?: string;
  newBootId?: string;
  /** Retries in a row (backoff), and connection failures in a row (unreachable). */
  attempt: number;
  connectFailures: number;
  /** monitor mode: the pass only tests. */
  dryRun: boolean;
  drift: boolean;
  lastError?: ErrorInfo;
  lastAttemptedRevision?: string;
  lastAppliedRevision?: string;
}

export type NodeEvent =
  | ({ type: 'desired.changed' } & Desired)
  | { type: 'resync' }
  | { type: 'reconcile.requested' }
  | { type: 'pause' }
  | { type: 'resume' }
  /** `revision`: the commit whose inventory no longer has the node (a deconfigure pass is reported under it). */
  | { type: 'node.removed'; deconfigure: boolean; revision: string };

export function asErrorInfo(error: unknown): ErrorInfo {
  const e = error as Partial<ErrorInfo> & { message?: string };
  return { code: e?.code ?? errors.GC_INTERNAL.code, message: e?.message ?? String(error), retryable: e?.retryable ?? false };
}

/** The record of an error the machine itself raises. */
function info(e: GroundcrewError): ErrorInfo {
  return { code: e.code, message: e.message, retryable: e.retryable };
}

export const phase = (c: NodeContext) => c.phases[c.phaseIndex] ?? '';
/** The running phase batches its reboot and so does the next one: a reboot it asks for can wait. */
const batchContinues = (c: NodeContext) => {
  const batch = c.rebootBatch ?? [];
  const next = c.phases[c.phaseIndex + 1];
  return batch.includes(phase(c)) && next !== undefined && batch.includes(next);
};

export const nodeSetup = setup({
  types: {} as { context: NodeContext; events: NodeEvent; input: NodeMachineInput },
  actors: {
    runPhase: fromPromise<PhaseResult, RunPhaseInput>(async () => {
      throw new Error('runPhase not provided');
    }),
    readBootId: fromPromise<string, { node: string }>(async () => {
      throw new Error('readBootId not provided');
    }),
    issueReboot: fromPromise<void, { node: string; revision: string }>(async () => {
      throw new Error('issueReboot not provided');
    }),
    waitForNewBoot: fromPromise<string, { node: string; previousBootId: string }>(async () => {
      throw new Error('waitForNewBoot not provided');
    }),
    checkReadiness: fromPromise<void, { node: string; nonce: string }>(async () => {
      throw new Error('checkReadiness not provided');
    }),
    deconfigure: fromPromise<void, { node: string; revision: string }>(async () => {
      throw new Error('deconfigure not provided');
    }),
  },
  guards: {
    isPaused: ({ context }) => context.paused,
    allPhasesDone: ({ context }) => context.phaseIndex >= context.phases.length,
    /** A batch's reboot is pending and this phase ends the batch: take it now. */
    endsRebootBatch: ({ context }) => context.pendingReboot && !batchContinues(context),
    isRebootLoop: ({ context }, params: { result: PhaseResult }) =>
      params.result.rebootRequested && context.rebootedPhases.includes(phase(context)),
    canBatchReboot: ({ context }, params: { result: PhaseResult }) => params.result.rebootRequested && batchContinues(context),
    wantsReboot: (_, params: { result: PhaseResult }) => params.result.rebootRequested,
    isOverRebootCap: ({ context }) => context.rebootsThisRevision >= context.limits.maxRebootsPerRevision,
    isUnreachable: ({ context }, params: { error: ErrorInfo }) =>
      params.error.code === errors.GC_CONNECT.code && context.connectFailures + 1 >= context.limits.maxConnectAttempts,
    isRetryable: (_, params: { error: ErrorInfo }) => params.error.retryable,
    /** The command may have reached the node: only an error its executor marked as never sent says it did not. */
    mayHaveBeenSent: (_, params: { error: unknown }) => !neverSent(params.error),
    isSameBoot: ({ context }, params: { bootId: string }) => params.bootId === context.newBootId,
    isApplyMode: ({ context }) => context.mode === 'apply',
    isMonitorMode: ({ context }) => context.mode === 'monitor',
  },
  delays: {
    retryBackoff: ({ context }) =>
      Math.min(context.limits.backoffBaseMs * 2 ** Math.max(0, context.attempt - 1), context.limits.backoffMaxMs) *
      (0.5 + Math.random() / 2),
    rebootTimeout: ({ context }) => context.limits.rebootTimeoutMs,
    settle: ({ context }) => context.limits.settleMs,
  },
  actions: {
    startPass: assign({ phaseIndex: 0, drift: false, dryRun: false }),
    nextPhase: assign({ phaseIndex: ({ context }) => context.phaseIndex + 1 }),
    noteAttempt: assign({ lastAttemptedRevision: ({ context }) => context.revision }),
    markApplied: assign(({ context }) => ({
      lastAppliedRevision: context.dryRun ? context.lastAppliedRevision : context.revision,
      attempt: 0,
      connectFailures: 0,
      lastError: undefined,
    })),
    deferReboot: assign(({ context }) => ({
      pendingReboot: true,
      requestedBy: [...context.requestedBy, phase(context)],
      phaseIndex: context.phaseIndex + 1,
    })),
    requestReboot: assign(({ context }) => ({ requestedBy: [...context.requestedBy, phase(context)] })),
    countReboot: assign(({ context }) => ({
      rebootsThisRevision: context.rebootsThisRevision + 1,
      rebootedPhases: [...context.rebootedPhases, ...context.requestedBy],
    })),
    // The reboot counted when its boot id was recorded never went out, and the machine gives up on it (stalled,
    // unreachable): take it back, so the phase asking again at the next pass is not a reboot loop, and the
    // pass starts with no reboot pending (the phases that still need one ask again).
    takeBackReboot: assign(({ context }) => ({
      rebootsThisRevision: Math.max(0, context.rebootsThisRevision - 1),
      rebootedPhases: context.rebootedPhases.filter((p) => !context.requestedBy.includes(p)),
      pendingReboot: false,
      requestedBy: [],
      previousBootId: undefined,
    })),
    rebootDone: assign({ pendingReboot: false, requestedBy: [], phaseIndex: 0, previousBootId: undefined, newBootId: undefined }),
    failWith: assign(({ context }, params: { error: ErrorInfo }) => ({
      lastError: params.error,
      attempt: context.attempt + 1,
      connectFailures: params.error.code === errors.GC_CONNECT.code ? context.connectFailures + 1 : 0,
    })),
    rebootLoop: assign(({ context }) => ({
      lastError: info(
        errors.GC_REBOOT_LOOP(
          `${phase(context)} asked for a reboot again after its reboot in revision ${context.revision}: something undoes its change, or it fails; not rebooting again`,
        ),
      ),
    })),
    rebootCap: assign(({ context }) => ({
      lastError: info(
        errors.GC_REBOOT_LOOP(
          `revision ${context.revision} already took ${context.rebootsThisRevision} reboots on ${context.node} (the cap); stopping here`,
        ),
      ),
    })),
    rebootTimedOut: assign(({ context }) => ({
      lastError: info(
        errors.GC_REBOOT_TIMEOUT(
          `${context.node} did not come back with a new boot id within ${Math.round(context.limits.rebootTimeoutMs / 1000)} s of its reboot`,
        ),
      ),
    })),
    adoptDesired: assign(({ context, event }) => {
      if (event.type !== 'desired.changed') return {};
      const newRevision = event.revision !== context.revision;
      return {
        revision: event.revision,
        phases: event.phases,
        rebootBatch: event.rebootBatch,
        mode: event.mode,
        paused: event.paused,
        ...(newRevision ? { rebootsThisRevision: 0, rebootedPhases: [], attempt: 0, connectFailures: 0, lastError: undefined } : {}),
      };
    }),
    resetRetries: assign({ attempt: 0, connectFailures: 0 }),
    // An operator's `reconcile`: a fresh start for the revision, its reboot bookkeeping included (they fixed
    // what looped, or reinstalled the node). Resyncs and crash restores never do this.
    startOver: assign({ attempt: 0, connectFailures: 0, rebootsThisRevision: 0, rebootedPhases: [] }),
  },
});
