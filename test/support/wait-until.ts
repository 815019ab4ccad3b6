// The one way a test waits for a condition: check it again and again until it holds, with a generous deadline
// (the suite runs on two busy cores), and on a timeout say what was awaited and what was last seen.

import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** How long the condition has to come true (default 20 s: within vitest's 30 s per test, so this message wins). */
  timeoutMs?: number;
  /** The pause between two checks (default 50 ms). */
  intervalMs?: number;
}

type Held<T> = Exclude<Awaited<T>, undefined | null | false>;

/**
 * Calls `check` until it returns something other than `undefined`, `null` or `false`, and returns that. A check
 * that throws counts as not yet (a server not listening yet, an `expect` not met yet); its last error is in the
 * timeout's message. `what` names the condition; as a function it is called at the timeout, to add what is seen.
 */
export async function waitUntil<T>(what: string | (() => string), check: () => T, options: WaitOptions = {}): Promise<Held<T>> {
  const { timeoutMs = 20_000, intervalMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let lastError: unknown;
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value as Held<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const said = typeof what === 'function' ? what() : what;
      const cause =
        lastError === undefined ? '' : ` (last check threw: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${said}${cause}`, { cause: lastError });
    }
    await sleep(intervalMs);
  }
}
