// The run window (run-window.ts): node machines leave a settled state only with a place, so a converge of many
// nodes never runs them all at once (issue 18: 10,000 running machines held most of the live heap). On the
// simulated six-node example: a first converge, and a resync of the converged cluster, with two places.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimExecutor, SimShells } from '../../../src/dataplane/sim-executor.js';
import type { DesiredState } from '../../../src/inventory/desired-state.js';
import { loadInventory } from '../../../src/inventory/load-inventory.js';
import { Reconciler } from '../../../src/reconciler/reconciler.js';
import { RunWindow } from '../../../src/reconciler/run-window.js';
import { StatusStore } from '../../../src/reconciler/status-store.js';
import { simCluster } from '../../support/sim-cluster.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'inventory-repo-example');
const RUNNING = new Set(['converging', 'rebooting', 'backoff']);

describe('Reconciler run window', () => {
  let shells: SimShells;
  let dir: string;
  let state: DesiredState;
  beforeAll(async () => {
    shells = await SimShells.create();
    dir = mkdtempSync(join(tmpdir(), 'gc-window-'));
    cpSync(EXAMPLE, dir, { recursive: true });
    const { result } = await loadInventory(dir);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    state = result.state;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The six nodes with `runWindow` places, and the most of them seen running at once after any status change. */
  function watched(runWindow: number) {
    const executors = simCluster(state, { shells, rebootMs: 50, latencyMs: 0 });
    const status = new StatusStore();
    const reconciler = new Reconciler({
      status,
      runWindow,
      access: (spec) => ({ exec: executors.get(spec.name) as SimExecutor, poll: { initialMs: 10, maxMs: 40 } }),
      limits: { settleMs: 20, rebootTimeoutMs: 10_000, backoffBaseMs: 20, backoffMaxMs: 200 },
    });
    const seen = { most: 0, waited: new Set<string>() };
    status.on('change', (event) => {
      if (event.type !== 'node') return;
      if (event.node.waiting?.startsWith('waits for a place to run')) seen.waited.add(event.node.name);
      seen.most = Math.max(seen.most, status.list().filter((n) => RUNNING.has(n.state)).length);
    });
    return { status, reconciler, seen };
  }

  it('a first converge runs at most the window (and a node others wait for) at once; the rest wait, shown so', {
    timeout: 60_000,
  }, async () => {
    const { status, reconciler, seen } = watched(2);
    try {
      const done = reconciler.settled();
      reconciler.apply({ sha: 'r1', state });
      await done;
      expect(status.list().map((n) => n.state)).toEqual(state.nodes.map(() => 'verified'));
      // Two places, and the controller the computes' gates wait for may go past them (`startNow`).
      expect(seen.most).toBeGreaterThan(0);
      expect(seen.most).toBeLessThanOrEqual(3);
      expect(seen.waited.size).toBeGreaterThanOrEqual(state.nodes.length - 3);
    } finally {
      await reconciler.stop();
    }
  });

  it('without a window every node starts at once (what the bound above is measured against)', { timeout: 60_000 }, async () => {
    const { reconciler, seen } = watched(0);
    try {
      const done = reconciler.settled();
      reconciler.apply({ sha: 'r1', state });
      await done;
      expect(seen.most).toBeGreaterThan(3);
      expect(seen.waited.size).toBe(0);
    } finally {
      await reconciler.stop();
    }
  });

  it('a resync of the converged cluster goes through the window too', { timeout: 60_000 }, async () => {
    const { status, reconciler, seen } = watched(1);
    try {
      const converged = reconciler.settled();
      reconciler.apply({ sha: 'r1', state });
      await converged;
      seen.most = 0;
      // Autocorrect (the example's mode): a resync runs a full pass on every verified node, one at a time here.
      const passes = new Set<string>();
      status.on('change', (event) => {
        if (event.type === 'node' && event.node.state === 'converging') passes.add(event.node.name);
      });
      reconciler.resync();
      await new Promise<void>((resolve) => {
        const look = () =>
          passes.size === state.nodes.length && status.list().every((n) => n.state === 'verified') ? resolve() : setTimeout(look, 20);
        look();
      });
      expect(seen.most).toBe(1);
    } finally {
      await reconciler.stop();
    }
  });

  it('nodes dropped from the inventory while they wait for a place give it back: the revision settles', { timeout: 60_000 }, async () => {
    const { status, reconciler } = watched(1);
    try {
      reconciler.apply({ sha: 'r1', state });
      // The next commit keeps only the controller (which no gate waits on): the others, waiting for the one place, leave with no entry.
      const kept = state.nodes.filter((n) => n.name === 'ctrl1');
      const done = reconciler.settled();
      reconciler.apply({ sha: 'r2', state: { ...state, nodes: kept } });
      const outcome = await Promise.race([done.then(() => 'settled'), new Promise((r) => setTimeout(() => r('still waiting'), 20_000))]);
      expect(outcome).toBe('settled');
      expect(status.get(kept[0]?.name ?? '')?.state).toBe('verified');
    } finally {
      await reconciler.stop();
    }
  });
});

describe('RunWindow places', () => {
  it("lets a node entered first (a failover's) in ahead of the nodes already waiting", () => {
    const admitted: string[] = [];
    const window = new RunWindow(1, (node) => admitted.push(node));
    expect(window.enter('a')).toBe(true);
    window.synced('a', true);
    expect(window.enter('b')).toBe(false);
    expect(window.enter('c')).toBe(false);
    expect(window.enter('first', true)).toBe(false);
    expect(window.counts).toEqual({ running: 1, waiting: 3 });
    window.settled('a');
    expect(admitted).toEqual(['a', 'first']);
    window.synced('first', true);
    window.settled('first');
    expect(admitted).toEqual(['a', 'first', 'b']);
    window.clear();
  });
});
