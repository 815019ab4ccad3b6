// Percentiles and medians over sorted samples, the one way every benchmark reads its figures.

/** The value at quantile q (0..1) of ascending `sorted` (nearest rank). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/** How a figure spreads over its samples: every benchmark prints and saves it beside the figure. */
export interface Spread {
  n: number;
  min: number;
  median: number;
  p90: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    median: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** "min 1.2 / median 3.4 / p90 5.6 / max 7.8 ms (n 200)" */
export function showSpread(s: Spread, unit = 'ms'): string {
  const f = (v: number) => v.toFixed(1);
  return `min ${f(s.min)} / median ${f(s.median)} / p90 ${f(s.p90)} / max ${f(s.max)} ${unit} (n ${s.n})`;
}
