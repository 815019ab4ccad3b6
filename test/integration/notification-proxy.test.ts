// Notification requests through a real HTTP proxy on loopback (tinyproxy, configured as Debian ships it: CONNECT
// to ports 443 and 563 only): with http_proxy set an http sink is reached through it by a plain proxied request
// (the proxy's log records `POST http://…`; a CONNECT tunnel was refused 403 by this default, issue 39), with
// no_proxy naming the sink they go direct, and with the proxy down nothing reaches the sink (retried, then
// failed): the proxy really is the way out. The daemon's notifier (cli/notifications-config.ts) takes the proxy
// from its environment.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationsSchema, startNotifications } from '../../src/cli/notifications-config.js';
import type { NotificationEvent } from '../../src/notifications/events.js';
import { proxiedFetch } from '../../src/notifications/proxy-fetch.js';
import { StatusStore } from '../../src/reconciler/status-store.js';
import { Metrics } from '../../src/server/metrics.js';
import { type CaptureServer, captureServer } from '../support/capture-server.js';
import { dispatch } from '../support/dispatch.js';
import { freePort } from '../support/ports.js';
import { startTinyproxy, type Tinyproxy } from '../support/tinyproxy.js';
import { waitUntil } from '../support/wait-until.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-proxy-'));
let proxy: Tinyproxy;
let sink: CaptureServer;

beforeAll(async () => {
  proxy = await startTinyproxy(dir);
  sink = await captureServer();
}, 30_000);
afterAll(async () => {
  await proxy?.stop();
  await sink?.close();
  rmSync(dir, { recursive: true, force: true });
});

const event: NotificationEvent = {
  kind: 'revision.rejected',
  at: '2026-11-26T08:00:00.000Z',
  severity: 'error',
  revision: '6dcb09b5b57875f334f61aebed695e2e4193db5e',
  summary: 'revision 6dcb09b5b578 rejected',
  url: 'http://gc.example/revisions/6dcb09b5b57875f334f61aebed695e2e4193db5e',
};
/** The requests the proxy forwarded to the sink, from its log (LogLevel Info records each request line). */
const tunnels = () => proxy.requests().filter((l) => l.startsWith(`POST ${sink.url}/`)).length;
const tunnelsReach = (count: number) =>
  waitUntil(
    () => `${count} requests forwarded to the sink (the proxy forwarded ${tunnels()}; its log: ${proxy.requests().join(' | ')})`,
    () => tunnels() >= count,
  );
const slack = () => ({ name: 'chat', type: 'slack' as const, url: `${sink.url}/services/T0/B0/x` });

describe('notifications through the proxy the environment names', () => {
  it('http_proxy: the request reaches the sink through the proxy, as a plain proxied request (no CONNECT)', async () => {
    expect(tunnels()).toBe(0);
    const before = sink.requests.length;
    const d = dispatch(slack(), {}, proxiedFetch({ http_proxy: proxy.url }));
    d.dispatcher.publish(event);
    expect(await d.finished()).toEqual(['sent']);
    expect(sink.requests.length).toBe(before + 1);
    await tunnelsReach(1);
    expect(proxy.requests().filter((l) => l.startsWith('CONNECT '))).toEqual([]);
  });

  it('HTTP_PROXY in upper case counts too; no_proxy naming the sink goes direct', async () => {
    const before = sink.requests.length;
    const upper = dispatch(slack(), {}, proxiedFetch({ HTTP_PROXY: proxy.url }));
    upper.dispatcher.publish(event);
    await upper.finished();
    await tunnelsReach(2);
    const direct = dispatch(slack(), {}, proxiedFetch({ http_proxy: proxy.url, no_proxy: 'localhost,127.0.0.1' }));
    direct.dispatcher.publish(event);
    expect(await direct.finished()).toEqual(['sent']);
    expect(sink.requests.length).toBe(before + 2);
    // The proxy logs a request as it reads it, before the sink can answer: none came for the direct one.
    expect(tunnels()).toBe(2);
  });

  it('with the proxy down, nothing reaches the sink: retried, then failed', async () => {
    const before = sink.requests.length;
    const d = dispatch(slack(), { retries: 1 }, proxiedFetch({ http_proxy: `http://127.0.0.1:${await freePort()}` }));
    d.dispatcher.publish(event);
    expect(await d.finished()).toEqual(['retried', 'failed']);
    expect(sink.requests.length).toBe(before);
  });

  it("the daemon's notifier reads the proxy from its environment", async () => {
    const before = tunnels();
    const saved = process.env.http_proxy;
    process.env.http_proxy = proxy.url;
    const status = new StatusStore();
    let stop: () => void;
    try {
      const config = NotificationsSchema.parse({ sinks: [{ name: 'chat', type: 'slack', url: `${sink.url}/services/T0/B0/daemon` }] });
      stop = startNotifications(config, {
        status,
        rollout: () => ({ halted: false, failed: [] }),
        metrics: new Metrics(status),
        log: pino({ level: 'silent' }),
        url: 'http://127.0.0.1:7070',
      });
    } finally {
      if (saved === undefined) delete process.env.http_proxy;
      else process.env.http_proxy = saved;
    }
    const start = sink.requests.length;
    status.recordRevision({ sha: event.revision as string, accepted: false, errors: ['instances.yaml:1:1: not YAML'] });
    await sink.received(start + 1);
    expect(sink.requests[start]?.path).toBe('/services/T0/B0/daemon');
    await tunnelsReach(before + 1);
    stop();
  });
});
