// Each notification sink against a local HTTP server on loopback that checks the request as its provider
// documents it (path, headers, body fields, signature); then retries with backoff, deduplication and the
// rate limit, seen from the server's side.

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import pino from 'pino';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher, type Outcome } from '../../src/notifications/dispatcher.js';
import { EVENT_KINDS, type NotificationEvent } from '../../src/notifications/events.js';
import type { SinkSpec } from '../../src/notifications/sinks.js';
import { waitUntil } from '../support/wait-until.js';

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let base = '';
const seen: Seen[] = [];
/** What the server answers next (status codes, in order); 200 once they run out. */
const answers: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      res.writeHead(answers.shift() ?? 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const SHA = '6dcb09b5b57875f334f61aebed695e2e4193db5e';
const event = (over: Partial<NotificationEvent> = {}): NotificationEvent => ({
  kind: 'rollout.halted',
  at: '2026-11-23T12:00:00.000Z',
  severity: 'error',
  revision: SHA,
  summary: 'rollout of 6dcb09b5b578 halted: win-compute-3 failed on it (failure budget 1)',
  url: `http://gc.example/revisions/${SHA}`,
  ...over,
});

/** Sends `e` through one sink and waits until the server saw `count` requests. */
async function through(spec: Omit<SinkSpec, 'events'>, e: NotificationEvent, policy = {}, count = 1) {
  const outcomes: Outcome[] = [];
  const start = seen.length;
  const d = new Dispatcher([{ spec: { events: EVENT_KINDS, ...spec }, policy: { backoffMs: 20, ...policy } }], {
    log: pino({ level: 'silent' }),
    onOutcome: (_s, o) => outcomes.push(o),
  });
  d.publish(e);
  await waitUntil(
    () => `${count} requests and outcomes (the server saw ${seen.length - start}, outcomes ${outcomes.length})`,
    () => seen.length - start >= count && outcomes.length >= count,
  );
  return { requests: seen.slice(start), outcomes, dispatcher: d };
}

describe('notification sinks, each checked by a loopback server as its provider documents it', () => {
  it('webhook: the event as JSON, signed as Standard Webhooks specifies (its reference library verifies it)', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const { requests } = await through({ name: 'ops', type: 'webhook', url: `${base}/hooks/ops`, secret }, event());
    const [r] = requests as [Seen];
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/hooks/ops');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-groundcrew-event']).toBe('rollout.halted');
    expect(r.headers['webhook-id']).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const headers = r.headers as Record<string, string>;
    expect(new Webhook(secret).verify(r.body, headers)).toEqual(event());
    expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(r.body, headers)).toThrow(WebhookVerificationError);
    // The old scheme's header is gone: it signed no timestamp, so a captured request could be replayed.
    expect(r.headers['x-signature']).toBeUndefined();
  });

  it('slack: an incoming webhook message, text and a mrkdwn section with the link', async () => {
    const { requests } = await through({ name: 'chat', type: 'slack', url: `${base}/services/T000/B000/XXXX` }, event());
    const [r] = requests as [Seen];
    expect(r.path).toBe('/services/T000/B000/XXXX');
    expect(r.headers['content-type']).toBe('application/json');
    const body = JSON.parse(r.body);
    expect(body.text).toContain('rollout of 6dcb09b5b578 halted');
    expect(body.blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: expect.stringContaining(`<${event().url}|open in groundcrew>`) } },
    ]);
  });

  it('teams: type "message" with one Adaptive Card attachment (contentType, contentUrl null, AdaptiveCard 1.2)', async () => {
    const { requests } = await through({ name: 'teams', type: 'teams', url: `${base}/webhookb2/abc` }, event());
    const body = JSON.parse((requests[0] as Seen).body);
    expect(body.type).toBe('message');
    expect(body.attachments).toHaveLength(1);
    const [card] = body.attachments;
    expect(card.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.contentUrl).toBeNull();
    expect(card.content).toMatchObject({
      $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
      type: 'AdaptiveCard',
      version: '1.2',
    });
    expect(card.content.body[1]).toEqual({ type: 'TextBlock', text: event().summary, wrap: true });
    expect(card.content.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open in groundcrew', url: event().url }]);
  });

  it('github: POST /repos/{owner}/{repo}/statuses/{sha}, Bearer token, API version header, state failure on a halt', async () => {
    const spec = {
      name: 'gh',
      type: 'github' as const,
      url: `${base}/api/v3`,
      secret: 'ghp_token',
      repo: 'acme/inventory',
      context: 'groundcrew/prod',
    };
    const { requests } = await through(spec, event());
    const [r] = requests as [Seen];
    expect(r.path).toBe(`/api/v3/repos/acme/inventory/statuses/${SHA}`);
    expect(r.headers.authorization).toBe('Bearer ghp_token');
    expect(r.headers.accept).toBe('application/vnd.github+json');
    expect(r.headers['x-github-api-version']).toBe('2022-11-28');
    expect(r.headers['user-agent']).toBe('groundcrew');
    expect(JSON.parse(r.body)).toEqual({
      state: 'failure',
      target_url: event().url,
      description: event().summary,
      context: 'groundcrew/prod',
    });
    const pending = await through(spec, event({ kind: 'revision.accepted', summary: 'x'.repeat(200) }));
    const body = JSON.parse((pending.requests[0] as Seen).body);
    expect(body.state).toBe('pending');
    expect(body.description).toHaveLength(140);
    // A node's event is not a commit's status: nothing is sent.
    const d = new Dispatcher([{ spec: { ...spec, events: EVENT_KINDS } }], { log: pino({ level: 'silent' }) });
    const before = seen.length;
    d.publish(event({ kind: 'node.stalled', node: 'win-compute-3' }));
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.length).toBe(before);
  });

  it('gitlab: POST /api/v4/projects/:id/statuses/:sha with PRIVATE-TOKEN; running while rolling out, success when done', async () => {
    const spec = { name: 'gl', type: 'gitlab' as const, url: base, secret: 'glpat-x', repo: 'infra/inventory' };
    const { requests } = await through(spec, event({ kind: 'revision.accepted' }));
    const [r] = requests as [Seen];
    expect(r.path).toBe(`/api/v4/projects/infra%2Finventory/statuses/${SHA}`);
    expect(r.headers['private-token']).toBe('glpat-x');
    expect(JSON.parse(r.body)).toEqual({ state: 'running', name: 'groundcrew', target_url: event().url, description: event().summary });
    const done = await through(spec, event({ kind: 'rollout.finished' }));
    expect(JSON.parse((done.requests[0] as Seen).body).state).toBe('success');
    const halted = await through(spec, event({ kind: 'rollout.halted', at: 'later' }));
    expect(JSON.parse((halted.requests[0] as Seen).body).state).toBe('failed');
  });

  it('gitea: POST /api/v1/repos/{owner}/{repo}/statuses/{sha}, Authorization: token, CreateStatusOption fields', async () => {
    const spec = { name: 'gt', type: 'gitea' as const, url: `${base}/`, secret: 'gtk', repo: 'ops/inventory' };
    const { requests } = await through(spec, event({ kind: 'revision.rejected' }));
    const [r] = requests as [Seen];
    expect(r.path).toBe(`/api/v1/repos/ops/inventory/statuses/${SHA}`);
    expect(r.headers.authorization).toBe('token gtk');
    expect(JSON.parse(r.body)).toEqual({ state: 'error', target_url: event().url, description: event().summary, context: 'groundcrew' });
  });

  it('retries a 500 with backoff, then succeeds; gives up after its retries', async () => {
    answers.push(500, 503);
    const ok = await through({ name: 'flaky', type: 'slack', url: `${base}/flaky` }, event(), {}, 3);
    expect(ok.outcomes).toEqual(['retried', 'retried', 'sent']);
    answers.push(500, 500, 500);
    const gaveUp = await through({ name: 'down', type: 'slack', url: `${base}/down` }, event(), { retries: 2 }, 3);
    expect(gaveUp.outcomes).toEqual(['retried', 'retried', 'failed']);
  });

  it('sends the same event once within the dedup window, and no more than its rate limit a minute', async () => {
    const outcomes: Outcome[] = [];
    const d = new Dispatcher(
      [{ spec: { name: 'lim', type: 'slack', url: `${base}/lim`, events: EVENT_KINDS }, policy: { perMinute: 2 } }],
      {
        log: pino({ level: 'silent' }),
        onOutcome: (_s, o) => outcomes.push(o),
      },
    );
    const start = seen.length;
    d.publish(event({ node: 'a', kind: 'node.stalled' }));
    d.publish(event({ node: 'a', kind: 'node.stalled' }));
    d.publish(event({ node: 'b', kind: 'node.stalled' }));
    d.publish(event({ node: 'c', kind: 'node.stalled' }));
    await waitUntil('four outcomes', () => outcomes.length >= 4);
    expect(outcomes.sort()).toEqual(['duplicate', 'rate-limited', 'sent', 'sent']);
    expect(seen.slice(start).map((r) => r.path)).toEqual(['/lim', '/lim']);
  });
});
