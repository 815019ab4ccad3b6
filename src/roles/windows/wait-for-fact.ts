// Waiting on a node for a condition read as facts: polled until it holds or a deadline passes. A connection
// that cannot be made, or drops, is a wait too (c-a-d's wait_for_connection): the next poll reconnects.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Executor } from '../../dataplane/executor.js';
import { errors, GroundcrewError } from '../../errors.js';
import { gatherFacts } from '../facts.js';
import type { FactQuery, Facts } from '../resource.js';

const RECONNECT = new Set<string>([errors.GC_CONNECT.code, errors.GC_CONNECTION_LOST.code, errors.GC_COMMAND_TIMEOUT.code]);

/** What a poll says: done, not yet, or given up on (the condition can no longer come true). */
export type Poll = 'done' | 'wait' | { failed: string };

export async function waitForFacts(
  exec: Executor,
  facts: FactQuery[],
  poll: (facts: Facts) => Poll,
  opts: { what: string; timeoutMs: number; intervalMs?: number; signal?: AbortSignal | undefined },
): Promise<Poll> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    let said: Poll = 'wait';
    try {
      said = poll(await gatherFacts(exec, facts, { label: opts.what, signal: opts.signal }));
    } catch (err) {
      if (!(err instanceof GroundcrewError && RECONNECT.has(err.code))) throw err;
    }
    if (said !== 'wait' || Date.now() >= deadline) return said;
    await sleep(opts.intervalMs ?? 500, undefined, { signal: opts.signal });
  }
}
