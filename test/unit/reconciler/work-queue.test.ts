// The work queue's guarantees (merge, no concurrent work on one key, a limit) and the disruption budget.

import { describe, expect, it } from 'vitest';
import { budgetOf, DisruptionBudget, WorkQueue } from '../../../src/reconciler/work-queue.js';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('WorkQueue', () => {
  it('merges events for a queued key, never works one key twice at once, and respects the limit', async () => {
    const running = new Set<string>();
    let peak = 0;
    const done: string[] = [];
    const q = new WorkQueue(2, async (key) => {
      expect(running.has(key)).toBe(false);
      running.add(key);
      peak = Math.max(peak, running.size);
      await tick();
      running.delete(key);
      done.push(key);
    });
    // a and b start at once; c and d wait; the later events for a (two) and b arrive while they run:
    // each comes back once more, never concurrently with itself. c queued twice would be merged.
    for (const key of ['a', 'b', 'c', 'c', 'a', 'a', 'b', 'd']) q.add(key);
    await q.drained();
    expect(done.sort()).toEqual(['a', 'a', 'b', 'b', 'c', 'd']);
    expect(peak).toBe(2);
  });

  it('an event while a key is processed brings it back exactly once, after the current work', async () => {
    const order: string[] = [];
    let q: WorkQueue | undefined;
    q = new WorkQueue(4, async (key) => {
      order.push(`start ${key}`);
      if (order.length === 1) {
        q?.add(key);
        q?.add(key);
      }
      await tick();
      order.push(`end ${key}`);
    });
    q.add('n1');
    await q.drained();
    expect(order).toEqual(['start n1', 'end n1', 'start n1', 'end n1']);
  });

  it('starts work after the caller of add returns, the key already counted as active', async () => {
    const started: string[] = [];
    const q = new WorkQueue(2, async (key) => {
      started.push(key);
    });
    q.add('n1');
    // A machine's observer adds its node: the node's sync must not run inside that observer.
    expect(started).toEqual([]);
    expect(q.active).toBe(1);
    await q.drained();
    expect(started).toEqual(['n1']);
  });

  it('keeps going after a failed key, reporting it', async () => {
    const failed: string[] = [];
    const q = new WorkQueue(
      1,
      async (key) => {
        if (key === 'bad') throw new Error('boom');
      },
      (key) => failed.push(key),
    );
    q.add('bad');
    q.add('good');
    await q.drained();
    expect(failed).toEqual(['bad']);
  });
});

describe('DisruptionBudget', () => {
  it('maxUnavailable as a count or a percentage, at least one', () => {
    expect(budgetOf(1, 6)).toBe(1);
    expect(budgetOf('50%', 6)).toBe(3);
    expect(budgetOf('10%', 6)).toBe(1);
    expect(() => budgetOf('many', 6)).toThrow(/not a count or a percentage/);
  });

  it('lets at most `limit` nodes be disrupted at once, in order of asking', async () => {
    const budget = new DisruptionBudget(1);
    const granted: string[] = [];
    await budget.acquire('w1');
    void budget.acquire('w2').then(() => granted.push('w2'));
    void budget.acquire('w3').then(() => granted.push('w3'));
    await tick();
    expect(budget.holders).toEqual(['w1']);
    await budget.acquire('w1');
    budget.release('w1');
    await tick();
    expect(granted).toEqual(['w2']);
    expect(budget.holders).toEqual(['w2']);
    budget.release('w2');
    await tick();
    expect(granted).toEqual(['w2', 'w3']);
  });
});
