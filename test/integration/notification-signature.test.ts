// The generic webhook's signature covers a timestamp (Standard Webhooks), checked by the scheme's reference
// library (npm standardwebhooks) on requests a real server on loopback received: every try of one event keeps
// its webhook-id and is signed anew at its own time; a captured request replayed after the receiver's window
// (5 minutes) is refused, and so is a timestamp moved without the key. A secret without the whsec_ prefix is
// the key as its bytes (the library's "raw" format).

import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NotificationEvent } from '../../src/notifications/events.js';
import { type CaptureServer, captureServer } from '../support/capture-server.js';
import { dispatch } from '../support/dispatch.js';

let receiver: CaptureServer;
beforeAll(async () => {
  receiver = await captureServer();
});
afterAll(() => receiver.close());

const event: NotificationEvent = {
  kind: 'node.stalled',
  at: '2026-11-26T08:00:00.000Z',
  severity: 'error',
  node: 'win-compute-3',
  summary: 'win-compute-3 stalled: GC_MSI_FAILED: msiexec 1603',
  url: 'http://gc.example/nodes/win-compute-3',
};
const headersOf = (r: { headers: Record<string, unknown> }) => r.headers as Record<string, string>;

describe('the generic webhook signature', () => {
  it('signs each try at its own time under one id; a replay outside the window and a moved timestamp are refused', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const before = receiver.requests.length;
    receiver.answers.push((res) => res.writeHead(503, { 'retry-after': '1' }).end());
    const d = dispatch({ name: 'ops', type: 'webhook', url: `${receiver.url}/hook`, secret }, { retries: 1 });
    d.dispatcher.publish(event);
    expect(await d.finished()).toEqual(['retried', 'sent']);
    const [first, second] = receiver.requests.slice(before) as [CaptureServerRequest, CaptureServerRequest];
    const wh = new Webhook(secret);
    for (const r of [first, second]) expect(wh.verify(r.body, headersOf(r))).toEqual(event);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(Number(second.headers['webhook-timestamp'])).toBeGreaterThan(Number(first.headers['webhook-timestamp']));
    expect(second.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);

    // The first try's signature with the second's timestamp: refused, the timestamp is signed.
    const moved = { ...headersOf(first), 'webhook-timestamp': String(second.headers['webhook-timestamp']) };
    expect(() => wh.verify(first.body, moved)).toThrow(WebhookVerificationError);
    // The captured request, replayed 6 minutes later: refused by the receiver's window.
    vi.useFakeTimers({ now: Date.now() + 6 * 60_000, toFake: ['Date'] });
    try {
      expect(() => wh.verify(second.body, headersOf(second))).toThrow(/timestamp too old/i);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a secret without the whsec_ prefix is the HMAC key as its UTF-8 bytes', async () => {
    const before = receiver.requests.length;
    const d = dispatch({ name: 'ops', type: 'webhook', url: `${receiver.url}/hook`, secret: 'a plain shared secret' });
    d.dispatcher.publish(event);
    await d.finished();
    const r = receiver.requests[before] as CaptureServerRequest;
    expect(new Webhook('a plain shared secret', { format: 'raw' }).verify(r.body, headersOf(r))).toEqual(event);
    expect(() => new Webhook('another secret', { format: 'raw' }).verify(r.body, headersOf(r))).toThrow(WebhookVerificationError);
  });
});

type CaptureServerRequest = CaptureServer['requests'][number];
