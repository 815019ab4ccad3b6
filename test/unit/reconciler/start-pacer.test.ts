// The start pacer: newly owned nodes go to the reconciler at a bounded rate, in the order taken, and the run
// window lets no more run at once than it has places (fake timers: the rate is counted in tokens, not measured).

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StartPacer } from '../../../src/reconciler/start-pacer.js';

const names = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `node-${from + i}`);

/** A pacer with these options, and the nodes it has started, in order. */
function paced(options: ConstructorParameters<typeof StartPacer>[0]) {
  const started: string[] = [];
  const pacer = new StartPacer(options, (nodes) => started.push(...nodes));
  return { pacer, started };
}

describe('StartPacer', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('without a rate lets every node through at once', () => {
    const started: string[][] = [];
    const pacer = new StartPacer(undefined, (nodes) => started.push(nodes));
    pacer.add(names(10_000));
    expect(started).toHaveLength(1);
    expect(started[0]).toHaveLength(10_000);
    expect(pacer.size).toBe(0);
  });

  it('lets `burst` through at once, then `perSecond`, in the order taken', () => {
    const started: string[][] = [];
    const pacer = new StartPacer({ perSecond: 50, burst: 20 }, (nodes) => started.push(nodes));
    pacer.add(names(200));
    expect(started.flat()).toEqual(names(20));
    expect(pacer.size).toBe(180);
    vi.advanceTimersByTime(1000);
    // 50 more in a second, never more than the burst in one go.
    expect(started.flat()).toEqual(names(70));
    for (const group of started) expect(group.length).toBeLessThanOrEqual(20);
    vi.advanceTimersByTime(10_000);
    expect(started.flat()).toEqual(names(200));
    expect(pacer.size).toBe(0);
  });

  it('a node removed while waiting never starts; clear drops every waiting node', () => {
    const { pacer, started } = paced({ perSecond: 10, burst: 1 });
    pacer.add(names(5));
    pacer.remove('node-1');
    vi.advanceTimersByTime(150);
    expect(started).toEqual(['node-0', 'node-2']);
    pacer.clear();
    vi.advanceTimersByTime(10_000);
    expect(started).toEqual(['node-0', 'node-2']);
    expect(pacer.size).toBe(0);
  });

  it('nodes added first go ahead of every node already waiting, still at the rate and within the window', () => {
    // Issue 19: a member still starting 1,000s of verified nodes it had just taken back when its peer died;
    // the node the peer left mid-reboot must not wait behind them.
    const { pacer, started } = paced({ perSecond: 10, burst: 10, window: 20, holdMs: 60_000 });
    pacer.add(names(1000));
    expect(started).toEqual(names(10));
    pacer.add(['orphan-0', 'orphan-1'], () => true);
    // No token left this instant: the first lane waits for the rate like anyone else (one token per 100 ms).
    expect(started).toEqual(names(10));
    vi.advanceTimersByTime(200);
    expect(started.slice(10)).toEqual(['orphan-0', 'orphan-1']);
    // A waiting node added first moves up; added again later (not first), it keeps its place in the first lane.
    pacer.add(['node-500'], () => true);
    pacer.add(['node-500']);
    vi.advanceTimersByTime(100);
    expect(started[12]).toBe('node-500');
    // Then the others in the order added, and never more than the window started and unsettled at once.
    vi.advanceTimersByTime(5000);
    expect(started.slice(13)).toEqual(names(7, 10));
    expect(pacer.active).toBe(20);
    expect(pacer.size).toBe(1000 + 2 - 20);
  });

  it('moveFirst moves a node waiting in the other lane to the first; one not waiting is left alone', () => {
    // A node gated on a node this member holds but has not started (its Keystone host) would wait behind
    // the whole queue: the gate's node is moved to the first lane.
    const { pacer, started } = paced({ perSecond: 10, burst: 2 });
    pacer.add(['orphan', ...names(100)], (n) => n === 'orphan');
    expect(started).toEqual(['orphan', 'node-0']);
    expect(pacer.moveFirst('node-80')).toBe(true);
    expect(pacer.moveFirst('node-0')).toBe(false);
    expect(pacer.moveFirst('elsewhere')).toBe(false);
    vi.advanceTimersByTime(200);
    expect(started).toEqual(['orphan', 'node-0', 'node-80', 'node-1']);
    expect(pacer.size).toBe(97);
  });

  it('with a window, starts no more than it until nodes settle; a place held past holdMs is freed', () => {
    const { pacer, started } = paced({ perSecond: 1000, burst: 1000, window: 3, holdMs: 5000 });
    pacer.add(names(10));
    expect(started).toEqual(names(3));
    vi.advanceTimersByTime(1000);
    expect(started).toEqual(names(3));
    pacer.done('node-1');
    expect(started).toEqual(names(4));
    expect(pacer.active).toBe(3);
    // Nobody settles: after holdMs the places go to the next three (a gate-blocked node cannot stall all starts).
    vi.advanceTimersByTime(5000);
    expect(started).toEqual(names(7));
    expect(pacer.size).toBe(3);
  });

  it('a window without a rate: places freed by settling go to the next at once, and by time after holdMs', () => {
    const { pacer, started } = paced({ window: 2, holdMs: 5000 });
    pacer.add(names(6));
    expect(started).toEqual(names(2));
    vi.advanceTimersByTime(1000);
    pacer.done('node-0');
    pacer.done('node-0');
    expect(started).toEqual(names(3));
    expect(pacer.active).toBe(2);
    vi.advanceTimersByTime(3999);
    expect(started).toEqual(names(3));
    // node-1 has held its place for 5 s without settling: it goes to node-3; node-2 started later keeps its own.
    vi.advanceTimersByTime(1);
    expect(started).toEqual(names(4));
    expect(pacer.size).toBe(2);
  });

  it('startNow: a waiting node goes now, past a full window, and holds a place like the others', () => {
    const { pacer, started } = paced({ window: 1 });
    pacer.add(names(3));
    expect(started).toEqual(['node-0']);
    pacer.startNow('node-2');
    pacer.startNow('node-0');
    expect(started).toEqual(['node-0', 'node-2']);
    expect(pacer.active).toBe(2);
    pacer.done('node-0');
    expect(started).toEqual(['node-0', 'node-2']);
    pacer.done('node-2');
    expect(started).toEqual(['node-0', 'node-2', 'node-1']);
  });
});
