// Which answers a notification is tried again after, seen from a real server on loopback: a 4xx (a revoked
// token, a wrong repo) is failed at once, one request; 429 and 503 are tried again no sooner than their
// Retry-After asks (seconds, or an HTTP-date), however short the sink's own backoff.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationEvent } from '../../src/notifications/events.js';
import { type CaptureServer, captureServer } from '../support/capture-server.js';
import { dispatch } from '../support/dispatch.js';

let sink: CaptureServer;
beforeAll(async () => {
  sink = await captureServer();
});
afterAll(() => sink.close());

const SHA = '6dcb09b5b57875f334f61aebed695e2e4193db5e';
const event = (summary: string): NotificationEvent => ({
  kind: 'revision.accepted',
  at: '2026-11-26T08:00:00.000Z',
  severity: 'info',
  revision: SHA,
  summary,
  url: `http://gc.example/revisions/${SHA}`,
});
const github = () => ({ name: 'gh', type: 'github' as const, url: sink.url, secret: 'ghp_revoked', repo: 'acme/inventory' });

describe('notification retries', () => {
  it('a 4xx is not retried: one request, failed, and the log says why', async () => {
    for (const code of [400, 401, 403, 404, 422]) {
      const before = sink.requests.length;
      sink.answers.push((res) => res.writeHead(code, { 'content-type': 'application/json' }).end('{"message":"Bad credentials"}'));
      const d = dispatch(github(), { retries: 5 });
      d.dispatcher.publish(event(`answered ${code}`));
      expect(await d.finished(), String(code)).toEqual(['failed']);
      expect(sink.requests.length - before, String(code)).toBe(1);
      expect(d.log()).toContain(`answered ${code}: {\\"message\\":\\"Bad credentials\\"}`);
      expect(d.log()).toContain('not retried');
      // An answer the sink gave is logged as what it is: its code, no stack, and that it is not tried again.
      const line = JSON.parse(d.log().trim().split('\n').at(-1) as string);
      expect(line).toMatchObject({ code: 'GC_NOTIFY_FAILED', retried: false });
      expect(line.err).toBeUndefined();
      expect(d.log()).not.toContain('"stack"');
    }
  });

  it('many retries over many events leave no listener behind (no MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const d = dispatch(github(), { retries: 4, backoffMs: 1, backoffMaxMs: 1 });
      for (let i = 0; i < 6; i++) {
        for (let t = 0; t < 5; t++) sink.answers.push((res) => res.writeHead(503).end());
        // Each its own revision: the same event twice would be a duplicate, not sent again.
        d.dispatcher.publish({ ...event(`unavailable ${i}`), revision: `${i}`.repeat(40) });
      }
      expect(await d.finished(6)).toEqual(Array.from({ length: 6 }, () => ['retried', 'retried', 'retried', 'retried', 'failed']).flat());
      // A process warning is emitted on the next tick: one more turn of the loop before looking.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
      expect(JSON.parse(d.log().trim().split('\n')[0] as string)).toMatchObject({ code: 'GC_NOTIFY_FAILED', retried: true });
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('429 with Retry-After in seconds: tried again no sooner than it asked', async () => {
    const before = sink.requests.length;
    sink.answers.push((res) => res.writeHead(429, { 'retry-after': '2' }).end());
    const d = dispatch(github(), { retries: 2, backoffMs: 10 });
    d.dispatcher.publish(event('rate limited'));
    expect(await d.finished()).toEqual(['retried', 'sent']);
    const [first, second] = sink.requests.slice(before);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(2000);
  });

  it('503 with Retry-After as an HTTP-date: tried again at that time, not before', async () => {
    const before = sink.requests.length;
    let until = 0;
    sink.answers.push((res) => {
      // Whole seconds, as the format has it: at least 2 s ahead.
      const date = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000);
      until = date.getTime();
      res.writeHead(503, { 'retry-after': date.toUTCString() }).end();
    });
    const d = dispatch(github(), { retries: 2, backoffMs: 10 });
    d.dispatcher.publish(event('down for maintenance'));
    expect(await d.finished()).toEqual(['retried', 'sent']);
    expect(sink.requests[before + 1]?.at ?? 0).toBeGreaterThanOrEqual(until);
  });

  it('a 5xx without Retry-After, and no answer at all, are retried with the backoff', async () => {
    const before = sink.requests.length;
    sink.answers.push(
      (res) => res.writeHead(502).end(),
      (res) => res.socket?.destroy(),
    );
    const d = dispatch(github(), { retries: 3, backoffMs: 10 });
    d.dispatcher.publish(event('flaky'));
    expect(await d.finished()).toEqual(['retried', 'retried', 'sent']);
    expect(sink.requests.length - before).toBe(3);
  });
});
