// One node's way to its committed revision: phases in order, batched reboots, retries, and reasons.
// No I/O here: the actors are placeholders, and the reconciler provides the real ones with .provide().

import { assign } from 'xstate';
import { asErrorInfo, DEFAULT_LIMITS, nodeSetup, phase } from './node-setup.js';
import { rebootingState } from './reboot-states.js';

export type {
  Limits,
  NodeEvent,
  NodeMachineInput,
  PhaseResult,
  RunPhaseInput,
} from './node-setup.js';

export const nodeMachine = nodeSetup.createMachine({
  id: 'node',
  context: ({ input }) => ({
    node: input.node,
    revision: input.revision,
    phases: input.phases,
    rebootBatch: input.rebootBatch,
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
    'node.removed': [
      { guard: ({ event }) => event.deconfigure, target: '.removing', actions: assign({ revision: ({ event }) => event.revision }) },
      { target: '.removed' },
    ],
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
          always: [{ guard: 'allPhasesDone', target: '#node.verified' }, { target: 'running' }],
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
              { guard: 'endsRebootBatch', target: '#node.rebooting' },
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
    rebooting: rebootingState,
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
        input: ({ context }) => ({ node: context.node, revision: context.revision }),
        onDone: 'removed',
        onError: { target: 'stalled', actions: { type: 'failWith', params: ({ event }) => ({ error: asErrorInfo(event.error) }) } },
      },
    },
    removed: { type: 'final' },
  },
});
