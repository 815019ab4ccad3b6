// The daemon (as a process) when its Git server goes away: a real `git daemon` on loopback, stopped and
// started again. The daemon stays up; /readyz, the status page and /metrics say the source is stalled and
// why; the revision in force stays; a restart while the server is away puts the clone's last head back in
// force; the server back, the next commit is applied and the condition clears.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';
import { type GitDaemon, gitDaemon } from '../support/git-daemon.js';
import { waitUntil } from '../support/wait-until.js';

let server: GitDaemon;
let daemon: DaemonProcess;
/** A condition's name with the daemon's last output, for a timeout's message. */
const withLog = (what: string) => () => `${what}\n${daemon.output().slice(-3000)}`;

async function get(path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${daemon.url}${path}`);
  return { status: response.status, text: await response.text() };
}

const stalledMetric = async () => /^groundcrew_source_stalled (\d)$/m.exec((await get('/metrics')).text)?.[1];
const accepted = async () =>
  ((await (await fetch(`${daemon.url}/api/revisions`)).json()) as { sha: string; accepted: boolean }[])
    .filter((r) => r.accepted)
    .map((r) => r.sha);

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-outage-'));
  server = await gitDaemon(dir);
  await server.start();
  daemon = await startDaemonProcess({ dir, url: server.url('origin.git'), pollInterval: '1s' });
});

afterAll(async () => {
  await daemon?.stop();
  await server?.stop();
});

describe('a Git server that goes away', () => {
  it('leaves the daemon up, the revision in force, and says so on /readyz, the page and /metrics', { timeout: 240_000 }, async () => {
    const first = daemon.git('rev-parse', 'HEAD');
    await waitUntil(withLog('the first revision in force'), async () => (await get('/readyz')).status === 200, { timeoutMs: 60_000 });
    expect(await stalledMetric()).toBe('0');

    await server.stop();
    const reason = new RegExp(`fetching main from git://127\\.0\\.0\\.1:\\d+/origin\\.git failed: .*; staying on ${first.slice(0, 12)}`);
    await waitUntil(withLog('the source stalled on /readyz'), async () => reason.test((await get('/readyz')).text), { timeoutMs: 60_000 });
    const ready = await get('/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text).reason).toMatch(/unable to connect|Connection refused/);
    expect(await stalledMetric()).toBe('1');
    expect((await get('/')).text).toMatch(/id="not-ready"[\s\S]*fetching main from git:\/\/127\.0\.0\.1/);
    expect(await accepted()).toEqual([first]);
    expect(daemon.running()).toBe(true);

    // Restarted while the server is away: up, with the clone's last fetched head in force again.
    await daemon.restart();
    await waitUntil(withLog('the source stalled after the restart'), async () => (await stalledMetric()) === '1', { timeoutMs: 60_000 });
    await waitUntil(withLog('the last head in force again'), async () => (await accepted()).includes(first), { timeoutMs: 60_000 });
    expect(JSON.parse((await get('/readyz')).text).reason).toMatch(reason);
    expect(daemon.running()).toBe(true);

    await server.start();
    const second = daemon.commit('after the outage');
    await waitUntil(withLog('the next commit in force'), async () => (await accepted()).includes(second), { timeoutMs: 60_000 });
    await waitUntil(withLog('the source ready again'), async () => (await get('/readyz')).status === 200, { timeoutMs: 60_000 });
    expect(await stalledMetric()).toBe('0');
    expect(daemon.output()).toMatch(/the source fetches main again/);
  });
});
