// Which nodes a commit touches follows from what role inputs read across nodes: a cross-node read defined with
// crossNodeRead is in sharedInputs' fingerprint as it is defined, with no list to update (issue 31).

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DesiredState } from '../../../src/inventory/desired-state.js';
import { loadInventory } from '../../../src/inventory/load-inventory.js';
import { crossNodeRead, sharedInputs } from '../../../src/reconciler/cross-node.js';
import { touched } from '../../../src/reconciler/role-input.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'inventory-repo-example');

async function example(): Promise<DesiredState> {
  const { result } = await loadInventory(EXAMPLE);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.state;
}

describe('cross-node reads', () => {
  it('a new read is fingerprinted at once: a change only it sees touches the nodes whose specs did not change', async () => {
    const before = await example();
    // The same node specs (the same objects), one Windows node's labels changed in a way no existing read sees.
    const [first, ...rest] = before.nodes;
    if (!first) throw new Error('the example has no nodes');
    const after: DesiredState = { ...before, nodes: [{ ...first, labels: { ...first.labels, rack: 'r9' } }, ...rest] };
    const inputs = (s: DesiredState) => ({ specs: new Map(s.nodes.map((n) => [n.name, n])), shared: sharedInputs(s) });
    const untouched = rest.map((n) => n.name);
    // Before: only the k8s_node ones are looked at (their kubelet comes from the control host, not the repo).
    const k8sNodes = rest.filter((n) => n.roles.includes('k8s_node')).map((n) => n.name);
    expect(untouched.filter((n) => touched(n, inputs(before), inputs(after)))).toEqual(k8sNodes);

    // A role input starts reading every node's racks: defined, and nothing else changed, the others are touched.
    crossNodeRead('racks (test)', (state) => state.nodes.map((n) => [n.name, n.labels.rack ?? '']));
    expect(sharedInputs(before)).not.toBe(sharedInputs(after));
    expect(untouched.filter((n) => touched(n, inputs(before), inputs(after)))).toEqual(untouched);
  });

  it('is worked out once per revision, however many nodes read it', async () => {
    const state = await example();
    let computed = 0;
    const read = crossNodeRead('count (test)', (s) => {
      computed++;
      return s.nodes.length;
    });
    for (const _ of state.nodes) read(state);
    sharedInputs(state);
    expect([read(state), computed]).toEqual([state.nodes.length, 1]);
  });
});
