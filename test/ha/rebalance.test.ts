// Cluster mode, issue 19: a member added to a converged cluster of two gets the nodes rendezvous hashing gives
// it, each handed over by its owner at a settled state: no node is ever driven by two members at once
// (hosts' call logs against an etcd watch of the owner keys), and the cluster stays converged.

import { describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait-until.js';
import { NODES } from './ha-cluster.js';
import { haSuite } from './ha-suite.js';

const TTL_MS = 3000;

describe('cluster mode: a member added', () => {
  const { ha, timeline } = haSuite({ members: ['m1', 'm2', 'm3'], etcdPort: 23790, leaseTtl: `${TTL_MS / 1000}s`, watchOwners: true });

  it('nodes move to the new member one hand-over at a time, never driven by two', { timeout: 240_000 }, async () => {
    await ha.startMembers(['m1', 'm2']);
    const sha = ha.pushInventory();
    await ha.converged(sha);
    const before = await ha.owners();
    expect(new Set(Object.values(before))).not.toContain('m3');

    const addedAt = Date.now();
    await ha.startMember('m3');
    await ha.registered(['m1', 'm2', 'm3']);
    let after: Record<string, string> = {};
    const owners = async () => {
      after = await ha.owners();
      return after;
    };
    await waitUntil(
      () => `m3 to take a node: ${JSON.stringify(after)}\n${ha.logTails()}`,
      async () => Object.values(await owners()).includes('m3'),
      {
        timeoutMs: 60_000,
        intervalMs: 200,
      },
    );
    // Every node has an owner again (a moved node is without one only between its hand-over and the take).
    await waitUntil(
      () => `an owner for every node: ${JSON.stringify(after)}`,
      async () => Object.keys(await owners()).length >= NODES.length,
      {
        timeoutMs: 30_000,
        intervalMs: 200,
      },
    );
    await ha.converged(sha, 60_000);

    const moved = NODES.filter((n) => before[n] !== after[n]);
    expect(moved.length).toBeGreaterThan(0);
    for (const node of moved) expect(after[node]).toBe('m3');
    for (const node of NODES) {
      const calls = await ha.lab.calls(node);
      expect(timeline.strays(node, calls), `${node}: commands from a member that did not own it`).toEqual([]);
      // Each owner key was let go before the next was taken (deleted, then created), never overwritten. (This
      // replaces a check that tenures do not overlap: the timeline opens the next at the moment it closes the
      // last, so that one held whatever etcd saw.)
      const tenures = JSON.stringify(timeline.tenures.filter((t) => t.node === node));
      expect(timeline.overwritten(node), `${node}: an owner key taken by force: ${tenures}`).toEqual([]);
      // The hosts' own logs, with no timing in the way: the node's driver changed at most once, to m3 (never
      // back and forth, never two members taking turns).
      const drivers: string[] = [];
      for (const c of calls) if (c.caller !== '-' && drivers.at(-1) !== c.caller) drivers.push(c.caller);
      const allowed = moved.includes(node) ? [before[node], 'm3'] : [before[node]];
      expect(drivers, `${node}: driven by ${drivers.join(' then ')}`).toEqual(allowed.slice(0, Math.max(1, drivers.length)));
    }
    const m3Calls = (await Promise.all(moved.map((n) => ha.lab.calls(n)))).flat().filter((c) => c.caller === 'm3');
    expect(m3Calls.every((c) => c.at > addedAt)).toBe(true);
    console.log(`rebalance: moved to m3: ${moved.join(', ')}`);
  });
});
