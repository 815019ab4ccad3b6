// The projection of a node's machine (node-status.ts `projectNode`): a snapshot becomes the saved record and the
// status, and a settled one a note for the node's next sync; what follows a settle is decided apart from it
// (sync-decision.ts `decideSettle`), so the actor's observer decides nothing.

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import type { NodeSpec } from '../../../src/inventory/desired-state.js';
import type { DesiredNode } from '../../../src/reconciler/desired-node.js';
import { GATE_CODES } from '../../../src/reconciler/gates.js';
import { launched, type NodeHandle, type NodeSnapshot, newRecord } from '../../../src/reconciler/node-record.js';
import { projectNode } from '../../../src/reconciler/node-status.js';
import { StatusStore } from '../../../src/reconciler/status-store.js';
import { decideSettle, laterSettle, type Settle } from '../../../src/reconciler/sync-decision.js';
import { nodeMachine } from '../../../src/state-machines/node-machine.js';

const spec = { name: 'n1', address: '192.0.2.5', os: 'linux', roles: ['vrouter'], labels: {}, versions: {} } as unknown as NodeSpec;
const desired = { spec, digest: 'd1', revision: 'r1' } as unknown as DesiredNode;

/** A record whose machine shows `value`, with `lastError` in its context. */
function recordIn(value: string, lastError?: { code: string; message: string }) {
  const input = { node: 'n1', revision: 'r1', phases: ['hostConfig'], rebootBatch: [], mode: 'apply' as const, paused: false, limits: {} };
  const actor = createActor(nodeMachine, { input });
  const context = { ...actor.getSnapshot().context, ...(lastError ? { lastError: { ...lastError, retryable: false } } : {}) };
  const snapshot = nodeMachine.resolveState({ value, context }) as NodeSnapshot;
  const record = newRecord({ name: 'n1', desired, access: { exec: {} } as never, log: pino({ level: 'silent' }) });
  launched(record, { getSnapshot: () => snapshot, getPersistedSnapshot: () => ({ value }) } as unknown as NodeHandle);
  return { record, snapshot };
}

describe('projectNode', () => {
  it('a running node: its record saved and its status shown, no settle', () => {
    const { record, snapshot } = recordIn('backoff', { code: 'GC_SSH_TIMEOUT', message: 'slow' });
    const projected = projectNode(record, snapshot, 'converging');
    expect(projected.saved).toEqual({ version: 1, digest: 'd1', revision: 'r1', snapshot: { value: 'backoff' } });
    expect(projected.status).toMatchObject({ name: 'n1', state: 'backoff', desiredRevision: 'r1' });
    expect(projected.detail).toBe('GC_SSH_TIMEOUT: slow');
    expect(projected.settle).toBeUndefined();
  });

  it('a rebooting node: its reboot step in its own field, no phase', () => {
    const input = {
      node: 'n1',
      revision: 'r1',
      phases: ['hostConfig'],
      rebootBatch: [],
      mode: 'apply' as const,
      paused: false,
      limits: {},
    };
    const context = createActor(nodeMachine, { input }).getSnapshot().context;
    const snapshot = nodeMachine.resolveState({ value: { rebooting: 'waitingForBoot' }, context }) as NodeSnapshot;
    const { record } = recordIn('backoff');
    const { status } = projectNode(record, snapshot, 'converging');
    expect(status).toMatchObject({ state: 'rebooting', reboot: 'waitingForBoot' });
    expect(status.phase).toBeUndefined();
    // Converging again: the field is cleared (the status store merges what the projection gives).
    expect(
      projectNode(record, nodeMachine.resolveState({ value: { converging: 'running' }, context }) as NodeSnapshot, 'rebooting').status,
    ).toMatchObject({
      state: 'converging',
      phase: 'hostConfig',
      reboot: undefined,
    });
  });

  it('a reboot step is a transition of its own in the history, under reboot', () => {
    const store = new StatusStore();
    store.update('n1', { name: 'n1', state: 'rebooting', reboot: 'issuing' });
    store.update('n1', { name: 'n1', state: 'rebooting', reboot: 'waitingForBoot' });
    store.update('n1', { name: 'n1', state: 'converging', phase: 'vrouter', reboot: undefined });
    expect(store.history('n1').map((t) => [t.state, t.phase, t.reboot])).toEqual([
      ['rebooting', undefined, 'issuing'],
      ['rebooting', undefined, 'waitingForBoot'],
      ['converging', 'vrouter', undefined],
    ]);
  });

  it('a settled node: a settle noted, entered only when the status showed another state', () => {
    const { record, snapshot } = recordIn('stalled', { code: 'GC_MSI_FAILED', message: 'exit 1603' });
    expect(projectNode(record, snapshot, 'converging').settle).toEqual({
      state: 'stalled',
      entered: true,
      code: 'GC_MSI_FAILED',
      revision: 'r1',
    });
    const again = projectNode(record, snapshot, 'stalled');
    expect(again.settle?.entered).toBe(false);
    // The timeline hears of a state once.
    expect(again.detail).toBeUndefined();
  });
});

describe('decideSettle', () => {
  const settle = (over: Partial<Settle>): Settle => ({ state: 'verified', entered: true, code: '', revision: 'r1', ...over });

  it('a second look at a settled node only gives back its place', () => {
    expect(decideSettle(settle({ entered: false }), GATE_CODES)).toEqual({ finish: false });
  });

  it('entering a state: the report finishes, and the rollout hears verified as recovered, a failure as failed', () => {
    expect(decideSettle(settle({}), GATE_CODES)).toEqual({ finish: true, outcome: 'recovered' });
    expect(decideSettle(settle({ state: 'stalled', code: 'GC_MSI_FAILED' }), GATE_CODES)).toEqual({ finish: true, outcome: 'failed' });
    expect(decideSettle(settle({ state: 'unreachable', code: 'GC_CONNECT' }), GATE_CODES)).toEqual({ finish: true, outcome: 'failed' });
    expect(decideSettle(settle({ state: 'removed' }), GATE_CODES)).toEqual({ finish: true, outcome: 'removed' });
    expect(decideSettle(settle({ state: 'paused' }), GATE_CODES)).toEqual({ finish: true });
  });

  it('stalled waiting on another node (a gate) counts against no budget', () => {
    expect(decideSettle(settle({ state: 'stalled', code: 'GC_GATE_FAILED' }), GATE_CODES)).toEqual({ finish: true });
  });

  it('two settles before one sync: the later, entered if either was', () => {
    const first = settle({ state: 'verified', entered: true });
    expect(laterSettle(first, settle({ entered: false }))).toEqual(settle({ entered: true }));
    expect(laterSettle(undefined, settle({ entered: false }))).toEqual(settle({ entered: false }));
  });
});
