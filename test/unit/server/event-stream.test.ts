// /api/events: the cap on clients (503 and a count past it), a page of another origin refused, each event
// serialized once for every client, and a client whose unsent bytes pass the bound dropped.

import { EventEmitter } from 'node:events';
import { type ClientRequest, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { StatusStore } from '../../../src/reconciler/status-store.js';
import { DEFAULT_EVENT_STREAM_LIMITS, EventStreams } from '../../../src/server/event-stream.js';
import { listenOnLoopback, statusServer } from '../../support/status-server.js';
import { waitUntil } from '../../support/wait-until.js';

let server: FastifyInstance | undefined;
const open: ClientRequest[] = [];
afterEach(async () => {
  for (const req of open.splice(0)) req.destroy();
  await server?.close();
  server = undefined;
});

/** GET /api/events on a real socket; resolves with the answer's head (the stream stays open). */
function stream(base: string, headers: Record<string, string> = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(new URL('/api/events', base), { headers }, resolve);
    req.on('error', reject);
    req.end();
    open.push(req);
  });
}

const turnedAway = async (base: string, reason: string) => {
  const text = await (await fetch(new URL('/metrics', base))).text();
  return Number(new RegExp(`groundcrew_event_streams_turned_away_total\\{reason="${reason}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
};

describe('/api/events', () => {
  it('answers 503 past its cap on clients, counts it, and takes a client again once one left', async () => {
    server = statusServer(new StatusStore(), { eventStreams: { maxClients: 2 } });
    const base = await listenOnLoopback(server);
    const first = await stream(base);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('text/event-stream');
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.headers['x-content-type-options']).toBe('nosniff');
    expect((await stream(base)).statusCode).toBe(200);
    const third = await stream(base);
    expect(third.statusCode).toBe(503);
    expect(third.headers['retry-after']).toBe('3');
    expect(await turnedAway(base, 'full')).toBe(1);
    expect(await (await fetch(new URL('/metrics', base))).text()).toContain('groundcrew_event_streams 2');
    (open[0] as ClientRequest).destroy();
    await waitUntil('a place again', async () => (await stream(base)).statusCode === 200);
  });

  it("refuses a page of another origin, and takes the daemon's own", async () => {
    server = statusServer(new StatusStore());
    const base = await listenOnLoopback(server);
    const foreign = await stream(base, { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(foreign.statusCode).toBe(403);
    const own = await stream(base, { origin: base, 'sec-fetch-site': 'same-origin' });
    expect(own.statusCode).toBe(200);
  });

  it('sends an event to every client as the same bytes, serialized once', async () => {
    const status = new StatusStore();
    server = statusServer(status);
    const base = await listenOnLoopback(server);
    const bodies = await Promise.all([stream(base), stream(base), stream(base)]);
    const texts = bodies.map((res) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      return () => text;
    });
    status.update('win-compute-1', { name: 'win-compute-1', state: 'converging' });
    await waitUntil('every client has the event', async () => texts.every((t) => t().includes('event: node')));
    const frames = texts.map((t) => t().slice(t().indexOf('event: node')));
    expect(frames[0]).toMatch(/^event: node\ndata: \{"node":\{"address":"".*"name":"win-compute-1".*\}\n\n$/s);
    expect(new Set(frames).size).toBe(1);
  });
});

/** A response that records what it is given: enough of ServerResponse for EventStreams, and nothing else. */
class RecordedResponse extends EventEmitter {
  writes: Buffer[] = [];
  destroyed = false;
  constructor(public writableLength = 0) {
    super();
  }
  writeHead() {
    return this;
  }
  write(chunk: Buffer | string) {
    this.writes.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    return true;
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

describe('EventStreams', () => {
  it('hands every client the one buffer an event was serialized to, and drops a client past its unsent bytes', () => {
    const status = new StatusStore();
    const reasons: string[] = [];
    const streams = new EventStreams(status, DEFAULT_EVENT_STREAM_LIMITS, { turnedAway: (r) => reasons.push(r) });
    const readers = [new RecordedResponse(), new RecordedResponse(), new RecordedResponse()];
    const behind = new RecordedResponse(DEFAULT_EVENT_STREAM_LIMITS.maxBufferedBytes);
    for (const res of [...readers, behind]) streams.open(new EventEmitter() as IncomingMessage, res as unknown as ServerResponse);
    status.update('n1', { name: 'n1', state: 'verified' });
    const sent = readers.map((r) => r.writes.at(-1));
    expect(sent[0]?.toString()).toContain('event: node');
    // The same object, not equal copies: one serialization, one buffer shared by every socket.
    expect(sent[1]).toBe(sent[0]);
    expect(sent[2]).toBe(sent[0]);
    expect(behind.destroyed).toBe(true);
    expect(behind.writes.map(String).join('')).not.toContain('event: node');
    expect(reasons).toEqual(['behind']);
    expect(streams.size).toBe(3);
    streams.close();
    expect(readers.every((r) => r.destroyed)).toBe(true);
  });
});
