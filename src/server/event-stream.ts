// /api/events: the status store's changes as server-sent events, to every client from one listener. Each event
// is serialized (and redacted) once into one buffer that every client's socket shares; a client whose unsent
// bytes pass a bound is dropped (its EventSource reconnects, and the page re-reads its regions on every open:
// nothing is replayed, so nothing is kept per client); past the cap on clients a new one gets 503.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { redactSecrets } from '../inventory/secret.js';
import type { StatusEvent, StatusStore } from '../reconciler/status-store.js';

export interface EventStreamLimits {
  /** Clients at once; one more is answered 503. */
  maxClients: number;
  /** Bytes written to a client and not yet taken by its socket; past them the client is dropped. */
  maxBufferedBytes: number;
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs: number;
  /** How long an EventSource waits before it reconnects (the stream's `retry:` field). */
  retryMs: number;
}

export const DEFAULT_EVENT_STREAM_LIMITS: EventStreamLimits = {
  maxClients: 256,
  maxBufferedBytes: 256 * 1024,
  heartbeatMs: 15_000,
  retryMs: 3000,
};

/** What /metrics counts of the streams. */
export interface EventStreamCounters {
  /** A client refused (`full`: past the cap) or dropped (`behind`: its unsent bytes passed the bound). */
  turnedAway: (reason: 'full' | 'behind') => void;
}

/** The bytes one status event is on the wire: `event:` and one `data:` line (JSON has no raw newline). */
export function eventFrame(event: StatusEvent): Buffer {
  const data =
    event.type === 'node' ? { node: event.node, transition: event.transition } : event.type === 'report' ? event.report : event.revision;
  return Buffer.from(`event: ${event.type}\ndata: ${JSON.stringify(redactSecrets(data))}\n\n`);
}

const HEARTBEAT = Buffer.from(': keep-alive\n\n');

export class EventStreams {
  readonly #clients = new Set<ServerResponse>();
  readonly #heartbeat: NodeJS.Timeout;
  readonly #onChange = (event: StatusEvent) => {
    if (this.#clients.size > 0) this.#broadcast(eventFrame(event));
  };

  constructor(
    private readonly status: StatusStore,
    private readonly limits: EventStreamLimits,
    private readonly counters: EventStreamCounters,
  ) {
    status.on('change', this.#onChange);
    this.#heartbeat = setInterval(() => this.#broadcast(HEARTBEAT), limits.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Clients connected now. */
  get size(): number {
    return this.#clients.size;
  }

  /** Takes over the response: a stream of events until either side closes it, or 503 past the cap. */
  open(request: IncomingMessage, res: ServerResponse): void {
    if (this.#clients.size >= this.limits.maxClients) {
      this.counters.turnedAway('full');
      const retryAfter = String(Math.ceil(this.limits.retryMs / 1000));
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'retry-after': retryAfter });
      res.end(`too many event streams open (${this.limits.maxClients}): try again later\n`);
      return;
    }
    this.#clients.add(res);
    const forget = () => this.#clients.delete(res);
    request.on('close', forget);
    res.on('close', forget);
    // Taken over from fastify: helmet's headers are not set on this answer, so the one that matters here is.
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'keep-alive',
    });
    res.write(`retry: ${this.limits.retryMs}\n: groundcrew events\n\n`);
  }

  /** Stops listening and ends every stream (the server is closing). */
  close(): void {
    clearInterval(this.#heartbeat);
    this.status.off('change', this.#onChange);
    for (const res of this.#clients) res.destroy();
    this.#clients.clear();
  }

  #broadcast(frame: Buffer): void {
    for (const res of this.#clients) {
      if (res.writableLength + frame.length > this.limits.maxBufferedBytes) {
        // Behind: what it has not taken is thrown away with its socket; a reader reconnects and re-reads.
        this.#clients.delete(res);
        this.counters.turnedAway('behind');
        res.destroy();
        continue;
      }
      res.write(frame);
    }
  }
}
