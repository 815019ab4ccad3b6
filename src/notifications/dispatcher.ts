// Sends events to sinks without ever holding reconciliation up: `publish` only queues (synchronously), and
// each sink has a worker of its own that sends in order, with a timeout per request, retries with
// exponential backoff (only where another try can succeed, and no sooner than the sink's Retry-After asks),
// a rate limit and deduplication. A sink that hangs or fails delays only itself; every
// outcome is counted (the daemon feeds /metrics) and each failure logged.

import type { Logger } from 'pino';
import { errors, type GroundcrewError } from '../errors.js';
import { dedupKey, type NotificationEvent } from './events.js';
import { type Fetch, post, RedirectRefused } from './post.js';
import { retryAfterMs, worthRetrying } from './retry-after.js';
import { requestFor, type SinkRequest, type SinkSpec } from './sinks.js';

export interface SinkPolicy {
  /** Requests a minute at most; an event over the limit is dropped (and counted). */
  perMinute: number;
  /** The same event (kind, revision, node) is sent once within this window. */
  dedupMs: number;
  /** Tries after the first (after no answer, 408, 429 or 5xx; never after another 4xx or a refused redirect),
   * with backoff from `backoffMs` doubling up to `backoffMaxMs`, or longer when the sink's `Retry-After` says so. */
  retries: number;
  backoffMs: number;
  backoffMaxMs: number;
  timeoutMs: number;
  /** The longest wait a sink's `Retry-After` is honoured for (a longer one is cut to it). */
  retryAfterMaxMs: number;
  /** Events waiting beyond this: the oldest is dropped. */
  queueLimit: number;
}

export const DEFAULT_POLICY: SinkPolicy = {
  perMinute: 60,
  dedupMs: 10 * 60_000,
  retries: 5,
  backoffMs: 1000,
  backoffMaxMs: 60_000,
  timeoutMs: 10_000,
  retryAfterMaxMs: 15 * 60_000,
  queueLimit: 1000,
};

export type Outcome = 'sent' | 'failed' | 'retried' | 'duplicate' | 'rate-limited' | 'overflow';

export interface DispatcherOptions {
  log: Logger;
  /** Every outcome, per sink: the daemon counts them in groundcrew_notifications_total. */
  onOutcome?: (sink: SinkSpec, outcome: Outcome) => void;
  /** How requests leave (the daemon's: proxiedFetch, through the environment's proxy). */
  fetch?: Fetch;
}

interface Lane {
  spec: SinkSpec;
  policy: SinkPolicy;
  queue: { event: NotificationEvent; request: SinkRequest }[];
  seen: Map<string, number>;
  sentAt: number[];
  running: boolean;
  stopped: AbortController;
}

/** Waits `ms`, or until `signal` aborts; its listener goes with it (one left per retry set off Node's MaxListeners warning). */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

export class Dispatcher {
  readonly #lanes: Lane[];
  readonly #fetch: Fetch;

  constructor(
    sinks: { spec: SinkSpec; policy?: Partial<SinkPolicy> }[],
    private readonly options: DispatcherOptions,
  ) {
    this.#fetch = options.fetch ?? fetch;
    this.#lanes = sinks.map(({ spec, policy }) => ({
      spec,
      policy: { ...DEFAULT_POLICY, ...policy },
      queue: [],
      seen: new Map(),
      sentAt: [],
      running: false,
      stopped: new AbortController(),
    }));
  }

  /** Queues `event` for every sink that takes it; returns at once. */
  publish(event: NotificationEvent): void {
    for (const lane of this.#lanes) {
      const request = requestFor(lane.spec, event);
      if (!request) continue;
      const now = Date.now();
      const key = dedupKey(event);
      const last = lane.seen.get(key);
      if (last !== undefined && now - last < lane.policy.dedupMs) {
        this.#outcome(lane, 'duplicate');
        continue;
      }
      lane.seen.set(key, now);
      if (lane.seen.size > 10_000) for (const [k, at] of lane.seen) if (now - at >= lane.policy.dedupMs) lane.seen.delete(k);
      lane.queue.push({ event, request });
      if (lane.queue.length > lane.policy.queueLimit) {
        lane.queue.shift();
        this.#outcome(lane, 'overflow');
      }
      if (!lane.running) void this.#drain(lane);
    }
  }

  /** Stops every worker: requests under way are aborted, queued events dropped. */
  stop(): void {
    for (const lane of this.#lanes) {
      lane.stopped.abort();
      lane.queue.length = 0;
    }
  }

  async #drain(lane: Lane): Promise<void> {
    lane.running = true;
    try {
      while (lane.queue.length > 0 && !lane.stopped.signal.aborted) {
        const next = lane.queue.shift();
        if (!next) break;
        const now = Date.now();
        lane.sentAt = lane.sentAt.filter((t) => now - t < 60_000);
        if (lane.sentAt.length >= lane.policy.perMinute) {
          this.#outcome(lane, 'rate-limited');
          this.options.log.warn({ sink: lane.spec.name, event: next.event.kind }, 'notification dropped: the sink is over its rate limit');
          continue;
        }
        lane.sentAt.push(now);
        await this.#send(lane, next.event, next.request);
      }
    } finally {
      lane.running = false;
    }
  }

  async #send(lane: Lane, event: NotificationEvent, request: SinkRequest): Promise<void> {
    const { policy, spec } = lane;
    for (let attempt = 0; attempt <= policy.retries; attempt++) {
      if (lane.stopped.signal.aborted) return;
      const tried = await this.#try(lane, request);
      if (tried.sent) {
        this.#outcome(lane, 'sent');
        return;
      }
      const last = attempt === policy.retries || tried.waitMs === undefined;
      this.#outcome(lane, last ? 'failed' : 'retried');
      // What the sink answered, or why there was no answer: a sink's refusal is expected, not a fault of ours, and
      // is logged without a stack, with whether it is tried again.
      const { error } = tried;
      this.options.log.warn(
        { sink: spec.name, event: event.kind, attempt: attempt + 1, code: error.code, reason: error.message, retried: !last },
        tried.waitMs === undefined
          ? 'notification failed; not retried (the same request would be refused again)'
          : last
            ? 'notification failed; dropped after its last retry'
            : 'notification failed; retrying',
      );
      if (last) return;
      const backoff = Math.min(policy.backoffMs * 2 ** attempt, policy.backoffMaxMs);
      await sleep(Math.min(Math.max(backoff, tried.waitMs ?? 0), policy.retryAfterMaxMs), lane.stopped.signal);
    }
  }

  /** One try: sent, or the error with how long the sink asked to wait (0: no word) or, undefined, not worth another try. */
  async #try(lane: Lane, request: SinkRequest): Promise<{ sent: true } | { sent: false; error: GroundcrewError; waitMs?: number }> {
    const { policy, spec } = lane;
    try {
      const headers = { ...request.headers, ...request.signed?.(new Date()) };
      const signal = AbortSignal.any([AbortSignal.timeout(policy.timeoutMs), lane.stopped.signal]);
      const res = await post(this.#fetch, request, headers, signal, spec.name);
      const text = await res.text().catch(() => '');
      if (res.ok) return { sent: true };
      const error = errors.GC_NOTIFY_FAILED(`${spec.type} sink "${spec.name}" answered ${res.status}: ${text.slice(0, 200)}`);
      if (!worthRetrying(res.status)) return { sent: false, error };
      return { sent: false, error, waitMs: retryAfterMs(res.headers.get('retry-after'), Date.now()) ?? 0 };
    } catch (err) {
      if (err instanceof RedirectRefused) return { sent: false, error: err.error };
      // No answer (refused, reset, timed out): the sink may be back on the next try.
      return { sent: false, error: errors.GC_NOTIFY_FAILED(`${spec.type} sink "${spec.name}": ${(err as Error).message}`, err), waitMs: 0 };
    }
  }

  #outcome(lane: Lane, outcome: Outcome): void {
    this.options.onOutcome?.(lane.spec, outcome);
  }
}
