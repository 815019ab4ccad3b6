// The targets of DESIGN section 9 and the performance issue, each read from a benchmark's saved results.

/** Every benchmark, in the order `npm run bench` runs them: scale and ha-scale last (the longest; the others are
 * worth having when they are cut short). bench/one.ts runs any one of them. */
export const BENCHMARKS = [
  'inventory-parse',
  'cli-start',
  'webhook-latency',
  'noop-vs-ansible',
  'first-converge',
  'windows-converge',
  'status-page',
  'scale',
  'ha-scale',
];

export interface Target {
  figure: string;
  benchmark: string;
  /** The figure from bench-results/<benchmark>.json; undefined when that run did not measure it. */
  read: (result: Record<string, unknown>) => number | undefined;
  unit: string;
  /** Met when the figure is below (`<`) or at least (`>=`) the value. */
  op: '<' | '>=';
  value: number;
  /** The cluster size the target is for: a run at another size is shown, not judged. */
  atNodes?: number;
  /** Set by us where the issue names none (said so in the output). */
  ours?: boolean;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export const TARGETS: Target[] = [
  { figure: 'daemon peak RSS', benchmark: 'scale', read: (r) => num(r.peakRssMiB), unit: 'MiB', op: '<', value: 512, atNodes: 10_000 },
  {
    figure: 'event-loop delay p99 during the converge',
    benchmark: 'scale',
    read: (r) => num(r.eventLoopDelayP99Ms),
    unit: 'ms',
    op: '<',
    value: 50,
    atNodes: 10_000,
  },
  {
    figure: 'one-node commit: revision -> first command, parse included',
    benchmark: 'scale',
    read: (r) => {
      const parse = num(r.oneNodeParseMs);
      const first = num(r.revisionToFirstCommandMs);
      return parse === undefined || first === undefined ? undefined : parse + first;
    },
    unit: 'ms',
    op: '<',
    value: 50,
    atNodes: 10_000,
  },
  {
    figure: 'groundcrew status CPU / groundcrew --help CPU, medians',
    benchmark: 'cli-start',
    read: (r) => num(r.ratio),
    unit: 'x',
    op: '<',
    value: 1.3,
  },
  { figure: 'webhook -> first command, p99', benchmark: 'webhook-latency', read: (r) => num(r.p99Ms), unit: 'ms', op: '<', value: 50 },
  {
    figure: 'no-op re-verify vs ansible-playbook',
    benchmark: 'noop-vs-ansible',
    read: (r) => num(r.medianRatio),
    unit: 'x',
    op: '>=',
    value: 50,
  },
  {
    figure: "groundcrew's re-verify / the no-op floor, median",
    benchmark: 'noop-vs-ansible',
    read: (r) => num((r.floor as { ratio?: { median?: unknown } } | undefined)?.ratio?.median),
    unit: 'x',
    op: '<',
    value: 2,
  },
  {
    figure: 'GET /api/nodes, median',
    benchmark: 'scale',
    read: (r) => num(r.apiNodesMedianMs),
    unit: 'ms',
    op: '<',
    value: 100,
    atNodes: 10_000,
  },
  ...(
    [
      ['status page /: first contentful paint, median', 'overview'],
      ['status page /?state=stalled: first contentful paint, median', 'filter'],
      ['status page /?q=NAME: first contentful paint, median', 'search'],
    ] as const
  ).map(
    ([figure, key]): Target => ({
      figure,
      benchmark: 'status-page',
      read: (r) => num((r[key] as { firstContentfulPaintMs?: { median?: unknown } } | undefined)?.firstContentfulPaintMs?.median),
      unit: 'ms',
      op: '<',
      value: 1000,
      atNodes: 10_000,
      ours: true,
    }),
  ),
  ...(
    [
      ['status page: filter in place (click to rows), median', 'filterInPlaceMs'],
      ['status page: search in place (Enter to row), median', 'searchInPlaceMs'],
    ] as const
  ).map(
    ([figure, key]): Target => ({
      figure,
      benchmark: 'status-page',
      read: (r) => num((r[key] as { median?: unknown } | undefined)?.median),
      unit: 'ms',
      op: '<',
      value: 1000,
      atNodes: 10_000,
      ours: true,
    }),
  ),
  {
    figure: 'GET /api/nodes (status store filled directly), median',
    benchmark: 'status-page',
    read: (r) => num((r.apiNodesMs as { median?: unknown } | undefined)?.median),
    unit: 'ms',
    op: '<',
    value: 100,
    atNodes: 10_000,
  },
  {
    // Issue 19 gives no number: the expectation is that sharing the nodes among members costs no time.
    figure: "HA: one member's converge / three members' (median)",
    benchmark: 'ha-scale',
    read: (r) => num(r.speedupThreeOverOne),
    unit: 'x',
    op: '>=',
    value: 1,
    atNodes: 10_000,
  },
  {
    // docs/operations.md: a dead member's nodes move once its lease expires (TTL, 10 s in the benchmark),
    // within one more ownership pass (TTL/3).
    figure: 'HA failover: member killed -> next command from the new owner, max',
    benchmark: 'ha-scale',
    read: (r) => num((r.firstCommandSpread as { max?: unknown } | undefined)?.max),
    unit: 'ms',
    op: '<',
    value: 13_333,
    atNodes: 10_000,
  },
];

/** One line per target: the figure, the target, and met / not met / not measured. */
export function targetLines(results: ReadonlyMap<string, Record<string, unknown>>): string[] {
  return TARGETS.map((t) => {
    const result = results.get(t.benchmark);
    const value = result ? t.read(result) : undefined;
    const goal = `target ${t.op} ${t.value} ${t.unit}${t.ours ? ' (ours: the issue sets none)' : ''}`;
    if (value === undefined) return `  ${t.figure}: not measured in this run (${goal})`;
    const nodes = num(result?.nodes);
    if (t.atNodes !== undefined && nodes !== t.atNodes)
      return `  ${t.figure}: ${value.toFixed(1)} ${t.unit} at ${nodes} nodes, not judged (${goal} at ${t.atNodes} nodes)`;
    const met = t.op === '<' ? value < t.value : value >= t.value;
    return `  ${t.figure}: ${value.toFixed(1)} ${t.unit}, ${goal}: ${met ? 'met' : 'NOT met'}`;
  });
}
