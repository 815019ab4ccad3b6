// Notification requests through a real HTTP proxy on loopback (tinyproxy): with http_proxy set they reach the
// sink through it (undici tunnels with CONNECT, which the proxy's log records), with no_proxy naming the sink
// they go direct, and with the proxy down nothing reaches the sink (retried, then failed): the proxy really is
// the way out. The daemon's notifier (cli/notifications-config.ts) takes the proxy from its environment.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
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

let dir: string;
let proxy: ChildProcess;
let proxyUrl = '';
let sink: CaptureServer;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    }).on('error', () => resolve(false));
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gc-proxy-'));
  const port = await freePort();
  const conf = join(dir, 'tinyproxy.conf');
  writeFileSync(
    conf,
    [`Port ${port}`, 'Listen 127.0.0.1', 'Allow 127.0.0.1', 'Timeout 30', `LogFile "${join(dir, 'log')}"`, 'LogLevel Info', ''].join('\n'),
  );
  // -d: in the foreground, a child of the test that ends with it.
  proxy = spawn('tinyproxy', ['-d', '-c', conf], { stdio: 'ignore' });
  const end = Date.now() + 20_000;
  while (!(await accepts(port))) {
    if (Date.now() > end) throw new Error('tinyproxy did not start listening');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  proxyUrl = `http://127.0.0.1:${port}`;
  sink = await captureServer();
}, 30_000);
afterAll(async () => {
  proxy?.kill();
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
/** The tunnels the proxy opened to the sink, from its log (LogLevel Info records each CONNECT). */
const tunnels = () =>
  readFileSync(join(dir, 'log'), 'utf8')
    .split('\n')
    .filter((l) => l.includes(`CONNECT ${new URL(sink.url).host} `)).length;
async function tunnelsReach(count: number): Promise<void> {
  const end = Date.now() + 20_000;
  while (tunnels() < count) {
    if (Date.now() > end) throw new Error(`the proxy opened ${tunnels()} tunnels to the sink, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const slack = () => ({ name: 'chat', type: 'slack' as const, url: `${sink.url}/services/T0/B0/x` });

describe('notifications through the proxy the environment names', () => {
  it('http_proxy: the request reaches the sink through the proxy', async () => {
    expect(tunnels()).toBe(0);
    const before = sink.requests.length;
    const d = dispatch(slack(), {}, proxiedFetch({ http_proxy: proxyUrl }));
    d.dispatcher.publish(event);
    expect(await d.finished()).toEqual(['sent']);
    expect(sink.requests.length).toBe(before + 1);
    await tunnelsReach(1);
  });

  it('HTTP_PROXY in upper case counts too; no_proxy naming the sink goes direct', async () => {
    const before = sink.requests.length;
    const upper = dispatch(slack(), {}, proxiedFetch({ HTTP_PROXY: proxyUrl }));
    upper.dispatcher.publish(event);
    await upper.finished();
    await tunnelsReach(2);
    const direct = dispatch(slack(), {}, proxiedFetch({ http_proxy: proxyUrl, no_proxy: 'localhost,127.0.0.1' }));
    direct.dispatcher.publish(event);
    expect(await direct.finished()).toEqual(['sent']);
    expect(sink.requests.length).toBe(before + 2);
    // The proxy logs a CONNECT as it reads it, before the sink can answer: none came for the direct one.
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
    process.env.http_proxy = proxyUrl;
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
