// How much garbage the daemon's V8 heap may grow into: `groundcrew run` sets it before it builds anything.

import { setFlagsFromString } from 'node:v8';

/**
 * After each full collection V8 lets the old generation grow to a multiple of what survived before the next
 * one; for a process with a multi-GiB limit the multiple goes up to 4. A converge allocates fast (every
 * command's script, output and facts) and keeps little, so the heap grew to about 4 times the live heap
 * (docs/BENCHMARKS.md: 1,515 MiB in use at the RSS peak, at most 401 MiB after any full collection, at 10,000
 * nodes). `--heap-growing-percent` caps the multiple instead: 1 + percent / 100. Unlike a fixed limit
 * (`--max-old-space-size`) there is nothing to run out of: the heap follows the live size, more collections
 * are the cost. V8 reads the flag at each collection, so setting it at run time works (it is not one of the
 * flags NODE_OPTIONS accepts). 30%, measured at 10,000 nodes once the run window bounded the live heap
 * (docs/BENCHMARKS.md, the fifth session's run): peak RSS 454 MiB against 514 at 50%, for 10% more CPU over
 * the converge (67.7 s against 61.5), the converge 2% longer and the event loop's p99 18.8 ms. Before the
 * run window, with twice the live heap, 50% was the better trade (20% cost 64% more CPU then).
 */
export const HEAP_GROWING_PERCENT = 30;

/** `percent` from GROUNDCREW_HEAP_GROWING_PERCENT when set (0: V8's own choice); anything else is refused. */
export function tuneDaemonHeap(setting: string | undefined): number {
  const percent = setting === undefined || setting === '' ? HEAP_GROWING_PERCENT : Number(setting);
  if (!Number.isInteger(percent) || percent < 0 || percent > 1000)
    throw new Error(`GROUNDCREW_HEAP_GROWING_PERCENT must be a whole number from 0 to 1000, not ${JSON.stringify(setting)}`);
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
