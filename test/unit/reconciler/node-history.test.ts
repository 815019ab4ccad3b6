// A node's history keeps its last 200 transitions in order, whether they are held as objects or packed.

import { describe, expect, it } from 'vitest';
import { NodeHistory } from '../../../src/reconciler/node-history.js';
import type { TransitionRecord } from '../../../src/reconciler/status-store.js';

const record = (seq: number): TransitionRecord => ({
  seq,
  at: `2026-11-23T10:00:${String(seq % 60).padStart(2, '0')}.000Z`,
  state: seq % 2 === 0 ? 'converging' : 'verified',
  ...(seq % 2 === 0 ? { phase: 'vrouter' } : {}),
  revision: 'a'.repeat(40),
  ...(seq % 7 === 0 ? { detail: `GC_CONNECT: "quoted" ü ${seq}` } : {}),
});

describe('NodeHistory', () => {
  it('gives back every record as pushed while under the limit', () => {
    const history = new NodeHistory();
    const pushed = Array.from({ length: 37 }, (_, i) => record(i + 1));
    for (const r of pushed) history.push('n1', r);
    expect(history.list('n1')).toEqual(pushed);
    expect(history.list('n2')).toEqual([]);
  });

  it('keeps the last 200, oldest first, and forgets a node', () => {
    const history = new NodeHistory();
    for (let seq = 1; seq <= 1000; seq++) history.push('n1', record(seq));
    const kept = history.list('n1');
    expect(kept).toHaveLength(200);
    expect(kept[0]).toEqual(record(801));
    expect(kept.at(-1)).toEqual(record(1000));
    history.forget('n1');
    expect(history.list('n1')).toEqual([]);
  });

  it('restored from another member: the last 200 kept, and pushes after it continue and stay within 200', () => {
    const history = new NodeHistory();
    history.push('n1', record(5000));
    history.restore(
      'n1',
      Array.from({ length: 250 }, (_, i) => record(i + 1)),
    );
    expect(history.list('n1').map((r) => r.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 51));
    for (let seq = 251; seq <= 300; seq++) history.push('n1', record(seq));
    const kept = history.list('n1');
    expect(kept).toHaveLength(200);
    expect(kept[0]).toEqual(record(101));
    expect(kept.at(-1)).toEqual(record(300));
  });
});
