// Notifications from the daemon (cli/daemon.ts in this process, simulated example cluster): a sink that
// hangs and one that answers 500 do not hold the rollout up (it finishes while the stuck sink still has a
// request open); their failures show in /metrics and the log; a GitHub commit status goes pending, then
// success, with a link to the revision's page.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { errors } from '../../src/errors.js';
import { logSink } from '../support/log-sink.js';
import { convergedAt, type SimDaemon, startSimDaemon } from '../support/sim-daemon.js';
import { waitUntil } from '../support/wait-until.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const servers: Server[] = [];
async function serve(handler: Handler): Promise<{ url: string; bodies: { path: string; body: string }[] }> {
  const bodies: { path: string; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      bodies.push({ path: req.url ?? '', body });
      handler(req, res, body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, bodies };
}

let d: SimDaemon | undefined;
afterAll(async () => {
  await d?.stop();
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

describe('notifications from the daemon', () => {
  it('a hanging sink and a failing one never delay the rollout; failures are in /metrics and the log; GitHub gets pending then success', async () => {
    const stuck = await serve(() => {});
    const failing = await serve((_req, res) => res.writeHead(500).end('boom'));
    const github = await serve((_req, res) => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'));
    const sink = logSink();
    const log = pino({ level: 'warn' }, sink.stream);
    const dir = mkdtempSync(join(tmpdir(), 'gc-notify-'));
    const secret = join(dir, 'hook-secret');
    const token = join(dir, 'github-token');
    writeFileSync(secret, 'hook-secret\n');
    writeFileSync(token, 'ghp_test\n');
    const started = Date.now();
    d = await startSimDaemon(
      {
        notifications: {
          pageUrl: 'http://groundcrew.example:7070',
          sinks: [
            { name: 'stuck', type: 'webhook', url: `${stuck.url}/hook`, secretFile: secret, timeout: '60s', retries: 0 },
            { name: 'broken', type: 'slack', url: `${failing.url}/services/x`, retries: 1, backoff: '50ms' },
            { name: 'gh', type: 'github', url: github.url, tokenFile: token, repo: 'acme/inventory' },
          ],
        },
      },
      log,
    );
    await d.until('the first revision', () => d?.daemon.status.current() !== undefined);
    const sha = d.daemon.status.current()?.sha as string;
    await convergedAt(d, sha);
    const rolloutMs = Date.now() - started;
    // The rollout finished while the stuck sink still holds its first request, unanswered.
    expect(stuck.bodies.length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(stuck.bodies[0]?.body ?? '{}').kind).toBe('revision.accepted');
    expect(rolloutMs).toBeLessThan(60_000);

    await waitUntil("GitHub's success status", () => github.bodies.some((b) => JSON.parse(b.body).state === 'success'));
    const statuses = github.bodies.map((b) => ({ path: b.path, ...JSON.parse(b.body) }));
    expect(statuses.map((s) => s.state)).toEqual(['pending', 'success']);
    for (const s of statuses) {
      expect(s.path).toBe(`/repos/acme/inventory/statuses/${sha}`);
      expect(s.target_url).toBe(`http://groundcrew.example:7070/revisions/${sha}`);
      expect(s.context).toBe('groundcrew');
    }

    const metrics = await (await fetch(`${d.url}/metrics`)).text();
    expect(metrics).toMatch(/groundcrew_notifications_total\{sink="broken",type="slack",result="failed"\} [1-9]/);
    expect(metrics).toMatch(/groundcrew_notifications_total\{sink="broken",type="slack",result="retried"\} [1-9]/);
    expect(metrics).toMatch(/groundcrew_notifications_total\{sink="gh",type="github",result="sent"\} 2/);
    console.log(`rollout finished in ${rolloutMs} ms with the stuck sink holding a request`);
    rmSync(dir, { recursive: true, force: true });
    const failures = sink
      .records<{ sink?: string; msg: string; code: string; reason: string; retried: boolean }>()
      .filter((l) => l.sink === 'broken');
    expect(
      failures.some((l) => l.msg.includes('dropped after its last retry') && l.code === errors.GC_NOTIFY_FAILED.code && !l.retried),
    ).toBe(true);
    expect(failures[0]?.reason).toContain('answered 500: boom');
  }, 90_000);
});
