// One node's way to its committed revision: phases in order, batched reboots, retries, and reasons.
// No I/O here: the actors are placeholders, and the reconciler provides the real ones with .provide().

import { assign, fromPromise, setup } from 'xstate';

export type Mode = 'apply' | 'monitor' | 'autocorrect';

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
  /** Phase names in order, as phasesFor gives them (`rebootWait` marks where batched reboots are taken). */
  phases: string[];
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
  /** A phase before rebootWait asked for a reboot: taken at rebootWait, once for all of them. */
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
  | { type: 'node.removed'; deconfigure: boolean };

const CONNECT_CODES = new Set(['GC_SSH_CONNECT']);

export function asErrorInfo(error: unknown): ErrorInfo {
  const e = error as Partial<ErrorInfo> & { message?: string };
  return { code: e?.code ?? 'GC_INTERNAL', message: e?.message ?? String(error), retryable: e?.retryable ?? false };
}

const phase = (c: NodeContext) => c.phases[c.phaseIndex] ?? '';
const rebootWaitAhead = (c: NodeContext) => c.phases.indexOf('rebootWait', c.phaseIndex + 1) > c.phaseIndex;

export const nodeMachine = setup({
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
    deconfigure: fromPromise<void, { node: string }>(async () => {
      throw new Error('deconfigure not provided');
    }),
  },
  guards: {
    isPaused: ({ context }) => context.paused,
    allPhasesDone: ({ context }) => context.phaseIndex >= context.phases.length,
    atRebootWait: ({ context }) => phase(context) === 'rebootWait',
    hasRebootPending: ({ context }) => context.pendingReboot,
    isRebootLoop: ({ context }, params: { result: PhaseResult }) =>
      params.result.rebootRequested && context.rebootedPhases.includes(phase(context)),
    canBatchReboot: ({ context }, params: { result: PhaseResult }) => params.result.rebootRequested && rebootWaitAhead(context),
    wantsReboot: (_, params: { result: PhaseResult }) => params.result.rebootRequested,
    isOverRebootCap: ({ context }) => context.rebootsThisRevision >= context.limits.maxRebootsPerRevision,
    isUnreachable: ({ context }, params: { error: ErrorInfo }) =>
      CONNECT_CODES.has(params.error.code) && context.connectFailures + 1 >= context.limits.maxConnectAttempts,
    isRetryable: (_, params: { error: ErrorInfo }) => params.error.retryable,
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
    rebootDone: assign({ pendingReboot: false, requestedBy: [], phaseIndex: 0, previousBootId: undefined, newBootId: undefined }),
    failWith: assign(({ context }, params: { error: ErrorInfo }) => ({
      lastError: params.error,
      attempt: context.attempt + 1,
      connectFailures: CONNECT_CODES.has(params.error.code) ? context.connectFailures + 1 : 0,
    })),
    rebootLoop: assign(({ context }) => ({
      lastError: {
        code: 'GC_REBOOT_LOOP',
        message: `${phase(context)} asked for a reboot again after its reboot in revision ${context.revision}: something undoes its change, or it fails; not rebooting again`,
        retryable: false,
      },
    })),
    rebootCap: assign(({ context }) => ({
      lastError: {
        code: 'GC_REBOOT_LOOP',
        message: `revision ${context.revision} already took ${context.rebootsThisRevision} reboots on ${context.node} (the cap); stopping here`,
        retryable: false,
      },
    })),
    rebootTimedOut: assign(({ context }) => ({
      lastError: {
        code: 'GC_REBOOT_TIMEOUT',
        message: `${context.node} did not come back with a new boot id within ${Math.round(context.limits.rebootTimeoutMs / 1000)} s of its reboot`,
        retryable: true,
      },
    })),
    adoptDesired: assign(({ context, event }) => {
      if (event.type !== 'desired.changed') return {};
      const newRevision = event.revision !== context.revision;
      return {
        revision: event.revision,
        phases: event.phases,
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
}).createMachine({
  id: 'node',
  context: ({ input }) => ({
    node: input.node,
    revision: input.revision,
    phases: input.phases,
    mode: input.mode,
    paused: input.paused,
    limits: { ...DEFAULT_LIMITS, ...input.limits },
    phaseIndex: 0,
    pendingReboot: false,
    rebootedPhases: [],
    requestedBy: [],
    rebootsThisRevision: 0,
    attempt: 0,
    connectFailures: 0,
    dryRun: false,
    drift: false,
  }),
  initial: 'pending',
  on: {
    'desired.changed': { target: '.pending', actions: 'adoptDesired' },
    pause: { target: '.paused', actions: assign({ paused: true }) },
    'node.removed': [{ guard: ({ event }) => event.deconfigure, target: '.removing' }, { target: '.removed' }],
  },
  states: {
    pending: {
      always: [
        { guard: 'isPaused', target: 'paused' },
        { target: 'converging', actions: 'startPass' },
      ],
    },
    converging: {
      entry: 'noteAttempt',
      initial: 'choosing',
      // After a restore the phase that was running is run again (phases are idempotent). The reconciler
      // sends resync to a converging node only then, never on its periodic resync.
      on: { resync: { target: '.choosing', reenter: true } },
      states: {
        choosing: {
          always: [
            { guard: 'allPhasesDone', target: '#node.verified' },
            { guard: { type: 'atRebootWait' }, target: 'rebootWait' },
            { target: 'running' },
          ],
        },
        rebootWait: {
          always: [
            { guard: 'hasRebootPending', target: '#node.rebooting' },
            { target: 'choosing', actions: 'nextPhase' },
          ],
        },
        running: {
          invoke: {
            src: 'runPhase',
            input: ({ context }) => ({
              node: context.node,
              revision: context.revision,
              phase: phase(context),
              dryRun: context.dryRun,
              corrective: context.lastAppliedRevision === context.revision,
            }),
            onDone: [
              {
                guard: { type: 'isRebootLoop', params: ({ event }) => ({ result: event.output }) },
                target: '#node.stalled',
                actions: 'rebootLoop',
              },
              {
                guard: ({ context }) => context.dryRun,
                target: 'choosing',
                actions: [assign({ drift: ({ context, event }) => context.drift || !event.output.inDesiredState }), 'nextPhase'],
              },
              {
                guard: { type: 'canBatchReboot', params: ({ event }) => ({ result: event.output }) },
                target: 'choosing',
                actions: 'deferReboot',
              },
              {
                guard: { type: 'wantsReboot', params: ({ event }) => ({ result: event.output }) },
                target: '#node.rebooting',
                actions: 'requestReboot',
              },
              { target: 'choosing', actions: ['nextPhase', 'resetRetries'] },
            ],
            onError: [
              {
                guard: { type: 'isUnreachable', params: ({ event }) => ({ error: asErrorInfo(event.error) }) },
                target: '#node.unreachable',
                actions: { type: 'failWith', params: ({ event }) => ({ error: asErrorInfo(event.error) }) },
              },
              {
                guard: { type: 'isRetryable', params: ({ event }) => ({ error: asErrorInfo(event.error) }) },
                target: '#node.backoff',
                actions: { type: 'failWith', params: ({ event }) => ({ error: asErrorInfo(event.error) }) },
              },
              { target: '#node.stalled', actions: { type: 'failWith', params: ({ event }) => ({ error: asErrorInfo(event.error) }) } },
            ],
          },
        },
      },
    },
    rebooting: {
      // A new revision or a pause waits for the node to be back: a reboot is not interrupted.
      on: {
        'desired.changed': { actions: 'adoptDesired' },
        pause: { actions: assign({ paused: true }) },
      },
      initial: 'checkingCap',
      states: {
        checkingCap: {
          always: [
            { guard: 'isOverRebootCap', target: '#node.stalled', actions: 'rebootCap' },
            { target: 'readingBootId', actions: 'countReboot' },
          ],
        },
        readingBootId: {
          on: { resync: { target: 'readingBootId', reenter: true } },
          invoke: {
            src: 'readBootId',
            input: ({ context }) => ({ node: context.node }),
            onDone: { target: 'recorded', actions: assign({ previousBootId: ({ event }) => event.output }) },
            onError: {
              target: '#node.backoff',
              actions: { type: 'failWith', params: ({ event }) => ({ error: asErrorInfo(event.error) }) },
            },
          },
        },
        // The boot id is in the snapshot before the reboot goes out: the snapshot is written at the end of
        // this step, and the reboot is issued in the next one.
        recorded: {
          on: { resync: 'resuming' },
          after: { 0: 'issuing' },
        },
        // Restored around the reboot: it may or may not have gone out. Never send a second one blindly:
        // the boot id says whether the node rebooted, is rebooting, or never got the request.
        resuming: {
          invoke: {
            src: 'readBootId',
            input: ({ context }) => ({ node: context.node }),
            onDone: [
              { guard: ({ context, event }) => event.output === context.previousBootId, target: 'issuing' },
              { target: 'checkingReadiness', actions: assign({ newBootId: ({ event }) => event.output }) },
            ],
            onError: 'waitingForBoot',
          },
        },
        issuing: {
          on: { resync: 'resuming' },
          invoke: {
            src: 'issueReboot',
            input: ({ context }) => ({ node: context.node, revision: context.revision }),
            // A dropped connection while asking for the reboot is the reboot starting.
            onDone: 'waitingForBoot',
            onError: 'waitingForBoot',
          },
        },
        waitingForBoot: {
          on: { resync: { target: 'waitingForBoot', reenter: true } },
          after: { rebootTimeout: { target: '#node.unreachable', actions: 'rebootTimedOut' } },
          invoke: {
            src: 'waitForNewBoot',
            input: ({ context }) => ({ node: context.node, previousBootId: context.previousBootId ?? '' }),
            onDone: { target: 'checkingReadiness', actions: assign({ newBootId: ({ event }) => event.output }) },
          },
        },
        checkingReadiness: {
          on: { resync: { target: 'checkingReadiness', reenter: true } },
          invoke: {
            src: 'checkReadiness',
            input: ({ context }) => ({ node: context.node, nonce: `${context.node}-${context.revision}-${context.rebootsThisRevision}` }),
            onDone: 'settling',
            onError: 'waitingForBoot',
          },
        },
        settling: {
          on: { resync: { target: 'settling', reenter: true } },
          after: { settle: 'confirming' },
        },
        confirming: {
          on: { resync: { target: 'confirming', reenter: true } },
          invoke: {
            src: 'readBootId',
            input: ({ context }) => ({ node: context.node }),
            onDone: [
              {
                guard: { type: 'isSameBoot', params: ({ event }) => ({ bootId: event.output }) },
                target: '#node.pending',
                actions: 'rebootDone',
              },
              // It rebooted again while settling: wait for that boot to settle in turn.
              { target: 'settling', actions: assign({ newBootId: ({ event }) => event.output }) },
            ],
            onError: 'waitingForBoot',
          },
        },
      },
    },
    backoff: {
      on: { resync: 'converging', 'reconcile.requested': { target: 'converging', actions: 'resetRetries' } },
      after: { retryBackoff: 'converging' },
    },
    stalled: {
      on: { resync: { target: 'pending', actions: 'resetRetries' }, 'reconcile.requested': { target: 'pending', actions: 'startOver' } },
    },
    unreachable: {
      on: { resync: { target: 'pending', actions: 'resetRetries' }, 'reconcile.requested': { target: 'pending', actions: 'startOver' } },
    },
    verified: {
      entry: 'markApplied',
      on: {
        // Asked to reconcile: a full pass, except in monitor mode, where groundcrew only ever looks.
        'reconcile.requested': [
          { guard: 'isMonitorMode', target: 'converging', actions: [assign({ phaseIndex: 0, dryRun: true, drift: false })] },
          { target: 'pending', actions: 'startOver' },
        ],
        resync: [
          { guard: 'isApplyMode' },
          { guard: 'isMonitorMode', target: 'converging', actions: [assign({ phaseIndex: 0, dryRun: true, drift: false })] },
          { target: 'pending' },
        ],
      },
    },
    paused: {
      on: { resume: { target: 'pending', actions: assign({ paused: false }) }, 'desired.changed': { actions: 'adoptDesired' } },
    },
    removing: {
      invoke: {
        src: 'deconfigure',
        input: ({ context }) => ({ node: context.node }),
        onDone: 'removed',
        onError: { target: 'stalled', actions: { type: 'failWith', params: ({ event }) => ({ error: asErrorInfo(event.error) }) } },
      },
    },
    removed: { type: 'final' },
  },
});
