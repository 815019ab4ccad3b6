// The reboot sub-machine of the node machine (DESIGN 5, "Reboot algorithm"): persist the boot id, reboot,
// wait for a new boot id, check readiness with a nonce, settle, confirm. Restored mid-reboot, it reads the
// boot id before doing anything: a reboot is never issued twice for the same request. A reboot request that
// provably never left (errors.ts `sent`) is asked again after a backoff, never waited rebootTimeout for.

import { assign } from 'xstate';
import { asErrorInfo, nodeSetup } from './node-setup.js';

type ErrorEvent = { error: unknown };
const failWith = { type: 'failWith', params: ({ event }: { event: ErrorEvent }) => ({ error: asErrorInfo(event.error) }) } as const;

/**
 * A reboot that provably never went out (no connection, the fence refused it), or the boot id read before its
 * retry failing: the phase's rules (node-machine.ts `running`), kept inside the reboot so it stays counted once.
 * Too many connection failures in a row is unreachable, a retryable error backs off and tries again, anything
 * else stalls; giving up takes the reboot back (`takeBackReboot`).
 */
const retryOrGiveUp = [
  {
    guard: { type: 'isUnreachable', params: ({ event }: { event: ErrorEvent }) => ({ error: asErrorInfo(event.error) }) },
    target: '#node.unreachable',
    actions: [failWith, 'takeBackReboot'],
  },
  {
    guard: { type: 'isRetryable', params: ({ event }: { event: ErrorEvent }) => ({ error: asErrorInfo(event.error) }) },
    target: 'issueBackoff',
    actions: [failWith],
  },
  { target: '#node.stalled', actions: [failWith, 'takeBackReboot'] },
] as const;

export const rebootingState = nodeSetup.createStateConfig({
  // A new revision or a pause waits for the node to be back: a reboot is not interrupted.
  on: {
    'desired.changed': { actions: 'adoptDesired' },
    pause: { actions: assign({ paused: true }) },
  },
  initial: 'checkingCap',
  states: {
    checkingCap: {
      always: [{ guard: 'isOverRebootCap', target: '#node.stalled', actions: 'rebootCap' }, { target: 'readingBootId' }],
    },
    readingBootId: {
      on: { resync: { target: 'readingBootId', reenter: true } },
      invoke: {
        src: 'readBootId',
        input: ({ context }) => ({ node: context.node }),
        // Counted with the boot id, the step before the reboot goes out: a read that fails sent no reboot,
        // and counting it made the phase's next ask look like a reboot loop (seen at 10,000 simulated nodes).
        onDone: { target: 'recorded', actions: [assign({ previousBootId: ({ event }) => event.output }), 'countReboot'] },
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
        onDone: 'waitingForBoot',
        onError: [
          // A dropped connection while asking for the reboot is the reboot starting: the boot id decides.
          { guard: { type: 'mayHaveBeenSent', params: ({ event }) => ({ error: event.error }) }, target: 'waitingForBoot' },
          // Never sent: nothing is rebooting, and waiting rebootTimeout for a new boot id would wait for nothing.
          ...retryOrGiveUp,
        ],
      },
    },
    // Backing off before asking again for a reboot that never went out.
    issueBackoff: {
      on: { resync: 'rereading' },
      after: { retryBackoff: 'rereading' },
    },
    // The boot id again before the retry: a node that rebooted meanwhile (by itself, or by hand) is not rebooted
    // a second time; its new boot is the one this reboot waited for.
    rereading: {
      on: { resync: { target: 'rereading', reenter: true } },
      invoke: {
        src: 'readBootId',
        input: ({ context }) => ({ node: context.node }),
        onDone: [
          { guard: ({ context, event }) => event.output === context.previousBootId, target: 'issuing' },
          { target: 'checkingReadiness', actions: assign({ newBootId: ({ event }) => event.output }) },
        ],
        onError: [...retryOrGiveUp],
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
});
