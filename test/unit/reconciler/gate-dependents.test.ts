// The index a settle wakes from: which nodes wait on which, kept as each node's gates change, and the wake
// itself, which looks only at the nodes listed and checks each still waits (a listed node's gates are re-read).

import { describe, expect, it } from 'vitest';
import { GateDependents } from '../../../src/reconciler/gate-dependents.js';
import { wakeDependents } from '../../../src/reconciler/gates.js';
import type { NodeRecord } from '../../../src/reconciler/node-record.js';

const none: ReadonlySet<string> = new Set();

/** A record as wakeDependents reads it: its gates, its machine's state and last error; what it is sent. */
function waiting(name: string, gates: string[], state: string, code: string, sent: string[]): NodeRecord {
  const snapshot = { context: { lastError: { code } }, matches: (s: string) => s === state };
  const actor = { getSnapshot: () => snapshot, send: (e: { type: string }) => sent.push(`${name} ${e.type}`) };
  return { name, desired: { gates: new Set(gates) }, actor } as unknown as NodeRecord;
}

describe('gate dependents', () => {
  it('lists the nodes waiting on a node, as their gates are set, replaced and dropped', () => {
    const index = new GateDependents();
    const ctrlOnly = new Set(['ctrl']);
    index.note('a', none, ctrlOnly);
    index.note('b', none, new Set(['ctrl', 'ctrl2']));
    expect([...index.of('ctrl')]).toEqual(['a', 'b']);
    expect([...index.of('ctrl2')]).toEqual(['b']);
    index.note('a', ctrlOnly, ctrlOnly);
    index.note('b', new Set(['ctrl', 'ctrl2']), new Set(['ctrl2']));
    expect([...index.of('ctrl')]).toEqual(['a']);
    index.note('a', ctrlOnly, none);
    expect([...index.of('ctrl')]).toEqual([]);
    expect([...index.of('ctrl2')]).toEqual(['b']);
    expect([...index.of('nobody')]).toEqual([]);
  });

  it('wakes the listed nodes that wait on a gate: one in backoff at once, a stalled one through the window', () => {
    const sent: string[] = [];
    const requested: string[] = [];
    const records = [
      waiting('backoff', ['ctrl'], 'backoff', 'GC_GATE_CLOSED', sent),
      waiting('stalled', ['ctrl'], 'stalled', 'GC_GATE_FAILED', sent),
      waiting('other-error', ['ctrl'], 'backoff', 'GC_SSH_CONNECT', sent),
      waiting('elsewhere', ['ctrl2'], 'backoff', 'GC_GATE_CLOSED', sent),
      // Listed under ctrl, but its gates no longer name it: the index may lag, the wake re-reads.
      waiting('moved', ['ctrl2'], 'backoff', 'GC_GATE_CLOSED', sent),
    ];
    const entries = new Map(records.map((r) => [r.name, r]));
    const index = new GateDependents();
    for (const r of records) index.note(r.name, none, r.desired.gates);
    index.note('moved', none, new Set(['ctrl']));
    index.note('gone', none, new Set(['ctrl']));
    wakeDependents('ctrl', entries, index, (node) => requested.push(node));
    expect(sent).toEqual(['backoff reconcile.requested']);
    expect(requested).toEqual(['stalled']);
  });
});
