// `npm run bench` ends with one line per target (issue 18's "Done when": every figure of its table printed with
// its target and met / not met). The table's six rows, with the issue's numbers, and how a line reads.

import { describe, expect, it } from 'vitest';
import { TARGETS, targetLines } from '../../../bench/targets.js';

/** Issue 18's table: figure (as bench/targets.ts names it), benchmark, op and value. */
const ISSUE_18 = [
  ['daemon peak RSS', 'scale', '<', 512],
  ['event-loop delay p99 during the converge', 'scale', '<', 50],
  ['one-node commit: revision -> first command, parse included', 'scale', '<', 50],
  ['webhook -> first command, p99', 'webhook-latency', '<', 50],
  ['no-op re-verify vs ansible-playbook', 'noop-vs-ansible', '>=', 50],
  ["groundcrew's re-verify / the no-op floor, median", 'noop-vs-ansible', '<', 2],
  ['GET /api/nodes, median', 'scale', '<', 100],
] as const;

describe("the benchmark's targets", () => {
  it("holds every figure of issue 18's table, with the issue's target", () => {
    for (const [figure, benchmark, op, value] of ISSUE_18) {
      const target = TARGETS.find((t) => t.figure === figure);
      expect(target, figure).toMatchObject({ benchmark, op, value });
      expect(target?.ours, `${figure}: the issue sets this one`).not.toBe(true);
    }
  });

  it('says met, NOT met, not measured, or not judged at another size, with the target', () => {
    const scale = { nodes: 10_000, peakRssMiB: 1013, eventLoopDelayP99Ms: 28.5, oneNodeParseMs: 13.3, revisionToFirstCommandMs: 9.9 };
    const lines = targetLines(new Map([['scale', scale]]));
    expect(lines).toHaveLength(TARGETS.length);
    expect(lines).toContain('  daemon peak RSS: 1013.0 MiB, target < 512 MiB: NOT met');
    expect(lines).toContain('  event-loop delay p99 during the converge: 28.5 ms, target < 50 ms: met');
    // Two readings added: 13.3 + 9.9.
    expect(lines).toContain('  one-node commit: revision -> first command, parse included: 23.2 ms, target < 50 ms: met');
    expect(lines).toContain('  webhook -> first command, p99: not measured in this run (target < 50 ms)');
    const small = targetLines(new Map([['scale', { ...scale, nodes: 2000 }]]));
    expect(small).toContain('  daemon peak RSS: 1013.0 MiB at 2000 nodes, not judged (target < 512 MiB at 10000 nodes)');
  });

  it('judges an at-least target by >=, the value itself included', () => {
    const lines = targetLines(new Map([['noop-vs-ansible', { medianRatio: 50 }]]));
    expect(lines).toContain('  no-op re-verify vs ansible-playbook: 50.0 x, target >= 50 x: met');
  });
});
