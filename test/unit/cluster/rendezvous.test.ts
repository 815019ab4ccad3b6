// Rendezvous hashing: every member gets a share of the nodes, and a member joining takes nodes only for
// itself (none moves between the others), so a membership change moves as few nodes as it can.

import { describe, expect, it } from 'vitest';
import { ownerOf } from '../../../src/cluster/rendezvous.js';

const NODES = Array.from({ length: 3000 }, (_, i) => `node-${i}`);

describe('rendezvous ownership', () => {
  it('spreads nodes across members, each within 10% of an even share', () => {
    const members = ['ctl1', 'ctl2', 'ctl3'];
    const counts = new Map<string, number>();
    for (const node of NODES) {
      const owner = ownerOf(node, members) as string;
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    for (const m of members) expect(Math.abs((counts.get(m) ?? 0) - 1000)).toBeLessThan(100);
  });

  it('a member added takes about its share, and only for itself; removed, only its nodes move', () => {
    const before = NODES.map((n) => ownerOf(n, ['ctl1', 'ctl2', 'ctl3']));
    const after = NODES.map((n) => ownerOf(n, ['ctl1', 'ctl2', 'ctl3', 'ctl4']));
    const moved = NODES.filter((_, i) => before[i] !== after[i]);
    expect(moved.every((n) => ownerOf(n, ['ctl1', 'ctl2', 'ctl3', 'ctl4']) === 'ctl4')).toBe(true);
    expect(Math.abs(moved.length - 750)).toBeLessThan(100);
    const without = NODES.map((n) => ownerOf(n, ['ctl1', 'ctl3']));
    NODES.forEach((_, i) => {
      if (before[i] !== 'ctl2') expect(without[i]).toBe(before[i]);
    });
  });

  it('the same answer whatever order the members are listed in; none without members', () => {
    for (const node of NODES.slice(0, 100)) expect(ownerOf(node, ['b', 'c', 'a'])).toBe(ownerOf(node, ['a', 'b', 'c']));
    expect(ownerOf('x', [])).toBeUndefined();
  });
});
