// A sink that answers with a redirect to another origin: no credential of any kind follows it (GitHub's and
// Gitea's Authorization, GitLab's PRIVATE-TOKEN, the webhook's signature, a chat URL's own path), the other
// origin sees no request at all, and the refusal is not retried. A redirect within the sink's origin (GitHub
// answers 307 for a renamed repository) is followed with the request whole. Real servers on loopback.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/notifications/dispatcher.js';
import type { NotificationEvent } from '../../src/notifications/events.js';
import type { SinkSpec } from '../../src/notifications/sinks.js';
import { type CaptureServer, captureServer } from '../support/capture-server.js';
import { dispatch } from '../support/dispatch.js';

let sink: CaptureServer;
let elsewhere: CaptureServer;
beforeAll(async () => {
  sink = await captureServer();
  // Another origin: the same address, another port.
  elsewhere = await captureServer();
});
afterAll(async () => {
  await sink.close();
  await elsewhere.close();
});

const SHA = '6dcb09b5b57875f334f61aebed695e2e4193db5e';
const event: NotificationEvent = {
  kind: 'rollout.finished',
  at: '2026-11-26T08:00:00.000Z',
  severity: 'info',
  revision: SHA,
  summary: 'applied on all 3 nodes it changes',
  url: `http://gc.example/revisions/${SHA}`,
};

/** Sends the event through one sink (3 retries allowed) and waits for its final outcome. */
async function send(spec: Omit<SinkSpec, 'events'>): Promise<{ outcomes: Outcome[]; log: string }> {
  const d = dispatch(spec, { retries: 3 });
  d.dispatcher.publish(event);
  const outcomes = await d.finished();
  d.dispatcher.stop();
  return { outcomes, log: d.log() };
}

const SINKS: [string, Omit<SinkSpec, 'events' | 'url'>, string][] = [
  ['github', { name: 'gh', type: 'github', secret: 'ghp_secret', repo: 'acme/inventory' }, 'authorization'],
  ['gitlab', { name: 'gl', type: 'gitlab', secret: 'glpat-secret', repo: 'infra/inventory' }, 'private-token'],
  ['gitea', { name: 'gt', type: 'gitea', secret: 'gitea-secret', repo: 'ops/inventory' }, 'authorization'],
  ['webhook', { name: 'hook', type: 'webhook', secret: 'hmac-secret' }, 'webhook-signature'],
  ['slack', { name: 'chat', type: 'slack' }, 'content-type'],
];

describe('a redirect to another origin', () => {
  for (const [type, spec, credential] of SINKS)
    it(`${type}: not followed, not retried; the other origin sees nothing (${credential} stays home)`, async () => {
      const before = sink.requests.length;
      sink.answers.push((res) => res.writeHead(307, { location: `${elsewhere.url}/caught` }).end());
      const { outcomes, log } = await send({ ...spec, url: `${sink.url}/T000/B000/secret-path` });
      expect(outcomes).toEqual(['failed']);
      expect(sink.requests.length - before).toBe(1);
      expect(sink.requests.at(-1)?.headers[credential]).toBeDefined();
      expect(elsewhere.requests).toEqual([]);
      expect(log).toContain(`a redirect to another origin (${elsewhere.url})`);
      expect(log).toContain('not retried');
      // The sink's URL is a secret of its own (a chat webhook's path): the log names origins only.
      expect(log).not.toContain('secret-path');
    });

  it('gitlab: no redirect status carries PRIVATE-TOKEN elsewhere (301, 302, 303, 307, 308)', async () => {
    for (const code of [301, 302, 303, 307, 308]) {
      sink.answers.push((res) => res.writeHead(code, { location: `${elsewhere.url}/api/v4/projects/x/statuses/${SHA}` }).end());
      const { outcomes } = await send({ name: 'gl', type: 'gitlab', url: sink.url, secret: 'glpat-secret', repo: 'infra/inventory' });
      expect(outcomes, String(code)).toEqual(['failed']);
    }
    expect(elsewhere.requests).toEqual([]);
  });
});

describe("a redirect within the sink's origin", () => {
  it('307 (a renamed repository) is followed with the method, body and token whole', async () => {
    const before = sink.requests.length;
    sink.answers.push((res) => res.writeHead(307, { location: `/repos/acme/inventory-renamed/statuses/${SHA}` }).end());
    const { outcomes } = await send({ name: 'gh', type: 'github', url: sink.url, secret: 'ghp_secret', repo: 'acme/inventory' });
    expect(outcomes).toEqual(['sent']);
    const [first, second] = sink.requests.slice(before);
    expect(second?.path).toBe(`/repos/acme/inventory-renamed/statuses/${SHA}`);
    expect(second?.method).toBe('POST');
    expect(second?.headers.authorization).toBe('Bearer ghp_secret');
    expect(second?.body).toBe(first?.body);
  });

  it('302 (which would turn the POST into a GET) is refused, not retried', async () => {
    const before = sink.requests.length;
    sink.answers.push((res) => res.writeHead(302, { location: '/elsewhere-on-the-same-host' }).end());
    const { outcomes, log } = await send({ name: 'gh', type: 'github', url: sink.url, secret: 'ghp_secret', repo: 'acme/inventory' });
    expect(outcomes).toEqual(['failed']);
    expect(sink.requests.length - before).toBe(1);
    expect(log).toContain('would turn the POST into a GET');
  });
});
