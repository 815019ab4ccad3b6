// Sends events to sinks without ever holding reconciliation up: `publish` only queues (synchronously), and
// each sink has a worker of its own that sends in order, with a timeout per request, retries with
// exponential backoff, a rate limit and deduplication. A sink that hangs or fails delays only itself; every
// outcome is counted (the daemon feeds /metrics) and each failure logged.

import type { Logger } from 'pino';
import { errors } from '../errors.js';
import { dedupKey, type NotificationEvent } from './events.js';
import { requestFor, type SinkRequest, type SinkSpec } from './sinks.js';

export interface SinkPolicy {
  /** Requests a minute at most; an event over the limit is dropped (and counted). */
  perMinute: number;
  /** The same event (kind, revision, node) is sent once within this window. */
  dedupMs: number;
  /** Tries after the first, with backoff from `backoffMs` doubling up to `backoffMaxMs`. */
  retries: number;
  backoffMs: number;
  backoffMaxMs: number;
  timeoutMs: number;
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
  queueLimit: 1000,
};

export type Outcome = 'sent' | 'failed' | 'retried' | 'duplicate' | 'rate-limited' | 'overflow';

export interface DispatcherOptions {
  log: Logger;
  /** Every outcome, per sink: the daemon counts them in groundcrew_notifications_total. */
  onOutcome?: (sink: SinkSpec, outcome: Outcome) => void;
  fetch?: typeof fetch;
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

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

export class Dispatcher {
  readonly #lanes: Lane[];
  readonly #fetch: typeof fetch;

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
      try {
        const res = await this.#fetch(request.url, {
          method: 'POST',
          headers: request.headers,
          body: request.body,
          signal: AbortSignal.any([AbortSignal.timeout(policy.timeoutMs), lane.stopped.signal]),
        });
        const text = await res.text().catch(() => '');
        if (res.ok) {
          this.#outcome(lane, 'sent');
          return;
        }
        throw errors.GC_NOTIFY_FAILED(`${spec.type} sink "${spec.name}" answered ${res.status}: ${text.slice(0, 200)}`);
      } catch (err) {
        const last = attempt === policy.retries;
        this.#outcome(lane, last ? 'failed' : 'retried');
        const error =
          (err as { code?: string }).code === errors.GC_NOTIFY_FAILED.code
            ? err
            : errors.GC_NOTIFY_FAILED(`${spec.type} sink "${spec.name}": ${(err as Error).message}`, err);
        this.options.log.warn(
          { err: error, sink: spec.name, event: event.kind, attempt: attempt + 1 },
          last ? 'notification failed; dropped after its last retry' : 'notification failed; retrying',
        );
        if (last) return;
        await sleep(Math.min(policy.backoffMs * 2 ** attempt, policy.backoffMaxMs), lane.stopped.signal);
      }
    }
  }

  #outcome(lane: Lane, outcome: Outcome): void {
    this.options.onOutcome?.(lane.spec, outcome);
  }
}
