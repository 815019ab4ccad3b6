// The state table (node-state.ts) is whole and agrees with the named subsets the rest of the code uses: every state
// once in the page's summary order, the page's "stuck" group what a rollout counts as failed (issue 40 item 3).

import { describe, expect, it } from 'vitest';
import { groupOfState, NODE_STATES, OUT_OF_ROLLOUT, SUMMARY_ORDER, TROUBLED } from '../../src/node-state.js';

describe('the node state table', () => {
  it('lists every state once, trouble first, and its stuck group is TROUBLED', () => {
    expect([...SUMMARY_ORDER].sort()).toEqual([...NODE_STATES].sort());
    expect(SUMMARY_ORDER.slice(0, 2)).toEqual(['stalled', 'unreachable']);
    expect(NODE_STATES.filter((s) => groupOfState(s) === 'stuck').sort()).toEqual([...TROUBLED].sort());
    expect(NODE_STATES.filter((s) => groupOfState(s) === 'healthy')).toEqual(['verified']);
    // Out of a rollout: the healthy and the set-aside ones.
    expect(NODE_STATES.filter((s) => ['healthy', 'aside'].includes(groupOfState(s))).sort()).toEqual([...OUT_OF_ROLLOUT].sort());
  });

  it('counts a value that is no state (a hostile record) as busy', () => {
    expect(groupOfState('flyingToTheMoon')).toBe('busy');
    expect(groupOfState('__proto__')).toBe('busy');
  });
});
