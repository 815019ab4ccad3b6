// One Dispatcher over one sink, for the notification tests: publish events, wait for outcomes, read the log.

import pino from 'pino';
import { Dispatcher, type DispatcherOptions, type Outcome, type SinkPolicy } from '../../src/notifications/dispatcher.js';
import { EVENT_KINDS } from '../../src/notifications/events.js';
import type { SinkSpec } from '../../src/notifications/sinks.js';
import { logSink } from './log-sink.js';
import { waitUntil } from './wait-until.js';

export interface Dispatch {
  dispatcher: Dispatcher;
  outcomes: Outcome[];
  /** The warnings logged, as JSON lines joined. */
  log(): string;
  /** Waits (a generous deadline) until an outcome that ends an event (sent, failed) came `count` times. */
  finished(count?: number): Promise<Outcome[]>;
}

export function dispatch(spec: Omit<SinkSpec, 'events'>, policy: Partial<SinkPolicy> = {}, fetch?: DispatcherOptions['fetch']): Dispatch {
  const outcomes: Outcome[] = [];
  const sink = logSink();
  const dispatcher = new Dispatcher([{ spec: { ...spec, events: EVENT_KINDS }, policy: { backoffMs: 10, ...policy } }], {
    log: pino({ level: 'warn' }, sink.stream),
    onOutcome: (_s, o) => outcomes.push(o),
    ...(fetch ? { fetch } : {}),
  });
  return {
    dispatcher,
    outcomes,
    log: sink.text,
    async finished(count = 1) {
      await waitUntil(
        () => `${count} sent or failed (outcomes so far: ${outcomes.join(', ')})`,
        () => outcomes.filter((o) => o === 'sent' || o === 'failed').length >= count,
        { timeoutMs: 30_000 },
      );
      return outcomes;
    },
  };
}
