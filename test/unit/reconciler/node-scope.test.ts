// The NodeScope of the coordination seam (cluster mode): the reconciler drives only the nodes its scope says yes
// to, looks again at just the nodes a rescope names (issue 19: a batch of taken nodes, not all 10,000 each time),
// and tells the scope when a node settles (the start pacer's window).

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimExecutor, SimShells } from '../../../src/dataplane/sim-executor.js';
import { loadInventory } from '../../../src/inventory/load-inventory.js';
import type { CoordinationListener } from '../../../src/reconciler/coordination.js';
import { localCoordination } from '../../../src/reconciler/local-coordination.js';
import type { NodeScope } from '../../../src/reconciler/node-scope.js';
import { Reconciler } from '../../../src/reconciler/reconciler.js';
import { StatusStore } from '../../../src/reconciler/status-store.js';
import { simCluster } from '../../support/sim-cluster.js';
import { waitUntil } from '../../support/wait-until.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'inventory-repo-example');

describe('Reconciler with a NodeScope', () => {
  let shells: SimShells;
  let dir: string;
  beforeAll(async () => {
    shells = await SimShells.create();
    dir = mkdtempSync(join(tmpdir(), 'gc-scope-'));
    cpSync(EXAMPLE, dir, { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('drives only the nodes in scope, rescopes the named ones, and reports each that settles', { timeout: 60_000 }, async () => {
    const { result } = await loadInventory(dir);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const state = result.state;
    const names = state.nodes.map((n) => n.name);
    const executors = simCluster(state, { shells, rebootMs: 100, latencyMs: 0 });
    const status = new StatusStore();
    const inScope = new Set<string>();
    const settled: string[] = [];
    const scope: NodeScope = {
      drives: (node) => (inScope.has(node) ? 'yes' : 'no'),
      letGo: () => undefined,
      settled: (node) => void settled.push(node),
      startsFirst: () => false,
      elsewhere: () => undefined,
    };
    // The reconciler listens to its coordination: the scope's changes reach it as rescopes.
    let listener: CoordinationListener | undefined;
    const coordination = {
      ...localCoordination(),
      scope,
      listen: (l: CoordinationListener) => {
        listener = l;
      },
    };
    const rescope = (nodes?: readonly string[]) => listener?.rescope(nodes);
    const reconciler = new Reconciler({
      status,
      coordination,
      access: (spec) => ({ exec: executors.get(spec.name) as SimExecutor, poll: { initialMs: 10, maxMs: 40 } }),
      limits: { settleMs: 20, rebootTimeoutMs: 10_000, backoffBaseMs: 20, backoffMaxMs: 200 },
    });
    try {
      const first = names.find((n) => !n.startsWith('win-')) as string;
      reconciler.apply({ sha: 'r1', state });
      // Nothing in scope: nothing driven.
      await new Promise((r) => setTimeout(r, 200));
      expect(names.filter((n) => status.get(n)?.state !== undefined)).toEqual([]);
      // One node in scope, named: only it is driven, to a settled state, and the scope hears of it.
      inScope.add(first);
      rescope([first]);
      await waitUntil(`${first} settled`, () => settled.includes(first));
      expect(status.get(first)?.state).toBe('verified');
      expect(names.filter((n) => n !== first && status.get(n)?.state !== undefined)).toEqual([]);
      // The rest in scope, none named: every node is looked at, and each is reported settled.
      for (const n of names) inScope.add(n);
      const done = reconciler.settled();
      rescope();
      await done;
      expect([...new Set(settled)].sort()).toEqual([...names].sort());
    } finally {
      await reconciler.stop();
    }
  });
});
