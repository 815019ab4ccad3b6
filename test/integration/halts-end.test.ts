// Rollouts that end (issue 29, item 1), on the daemon as `groundcrew run` assembles it (simulated example cluster,
// `failureBudget: 1`, `maxUnavailable: 1`): a halt holds two Windows nodes while one failed.
//
// Which node fails is the first to try the version: the simulator's `failVersions` fault is set on all three hosts
// before the commit, so whichever goes first fails and the other two are held (maxUnavailable 1 makes it one at a
// time); the fault is then taken off the held two, so the version is good on them and bad on the failed one.
//
// - A later commit that leaves the held nodes on the halted revision ends nothing: `groundcrew_rollout_halted`
//   stays 1, no `rollout.finished` for it. The commit that fixes only the failed node's pin ends the halt: the held
//   nodes go on with their desired revision, and `rollout.finished` comes only once they applied it.
// - `groundcrew rollout resume REV` (the real binary, the daemon's token) releases a halt as it stands.
// - The same on a fresh daemon whose first revision has the bad node.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { SimShells } from '../../src/dataplane/sim-executor.js';
import { loadInventory } from '../../src/inventory/load-inventory.js';
import type { WindowsState } from '../../src/sim/windows/windows-state.js';
import { logSink } from '../support/log-sink.js';
import { simCluster } from '../support/sim-cluster.js';
import { convergedAt, type SimDaemon, startSimDaemon } from '../support/sim-daemon.js';
import { waitUntil } from '../support/wait-until.js';

const BIN = join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');
const EXAMPLE = join(import.meta.dirname, '..', '..', 'inventory-repo-example');
const WINDOWS = ['win-compute-1', 'win-compute-2', 'win-compute-3'];

const dirs: string[] = [];
const servers: Server[] = [];
const daemons: SimDaemon[] = [];
afterAll(async () => {
  await Promise.all(daemons.map((d) => d.stop()));
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gc-halts-'));
  dirs.push(dir);
  return dir;
}

interface Received {
  kind: string;
  revision?: string;
  /** Each node as the status store had it when the event arrived: was it on its desired revision? */
  applied: Record<string, boolean>;
}

/** A generic webhook sink on loopback: each event received, with the nodes as they stood when it came. */
async function captureSink(dir: string, daemon: () => SimDaemon | undefined) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const event = JSON.parse(body) as { kind: string; revision?: string };
      const nodes = daemon()?.daemon.status.list() ?? [];
      const applied = Object.fromEntries(nodes.map((n) => [n.name, n.state === 'verified' && n.lastAppliedRevision === n.desiredRevision]));
      received.push({ kind: event.kind, ...(event.revision ? { revision: event.revision } : {}), applied });
      res.writeHead(204).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  writeFileSync(join(dir, 'hook-secret'), 'hook-secret\n');
  const sinks = [{ name: 'capture', type: 'webhook', url: `http://127.0.0.1:${port}/hook`, secretFile: join(dir, 'hook-secret') }];
  return { received, notifications: { sinks } };
}

async function haltedGauge(d: SimDaemon): Promise<number> {
  const text = await (await fetch(`${d.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('groundcrew_rollout_halted '));
  if (!line) throw new Error('no groundcrew_rollout_halted in /metrics');
  return Number(line.split(' ')[1]);
}

/** Waits for one Windows node of `sha` stalled and the other two held by its halt; returns them. */
async function haltedWithTwoHeld(d: SimDaemon, sha: string): Promise<{ failed: string; held: string[] }> {
  await d.until('one failure and two held', () => {
    const win = d.daemon.status.list().filter((n) => WINDOWS.includes(n.name) && n.desiredRevision === sha);
    return win.filter((n) => n.state === 'stalled').length === 1 && win.filter((n) => n.waiting?.includes('halted')).length === 2;
  });
  const failed = d.daemon.status.list().find((n) => WINDOWS.includes(n.name) && n.state === 'stalled')?.name as string;
  return { failed, held: WINDOWS.filter((w) => w !== failed) };
}

/** Waits for `sha`'s rollout.finished; it came only once every node was on its desired revision. */
async function finishedOnceAllApplied(received: Received[], sha: string): Promise<void> {
  await waitUntil(
    `rollout.finished for ${sha.slice(0, 12)}`,
    () => received.some((e) => e.kind === 'rollout.finished' && e.revision === sha),
    { timeoutMs: 60_000 },
  );
  const finished = received.find((e) => e.kind === 'rollout.finished' && e.revision === sha) as Received;
  expect(Object.entries(finished.applied).filter(([, applied]) => !applied)).toEqual([]);
}

describe('a halt ends', () => {
  it('not by a later commit that leaves the held nodes where they are; by the commit that fixes the failed pin', async () => {
    const dir = tempDir();
    let d: SimDaemon | undefined;
    const { received, notifications } = await captureSink(dir, () => d);
    d = await startSimDaemon({ notifications });
    daemons.push(d);
    await d.until('the first revision', () => d?.daemon.status.current() !== undefined);
    await convergedAt(d, d.daemon.status.current()?.sha as string);

    for (const w of WINDOWS) d.windows(w).state.faults.failVersions = ['5.0.2'];
    const c1 = await d.push('the Windows nodes to 5.0.2', () => {
      for (const w of WINDOWS) d?.setVersion(w, '5.0.2');
    });
    const { failed, held } = await haltedWithTwoHeld(d, c1);
    for (const w of held) d.windows(w).state.faults.failVersions = [];
    await waitUntil('groundcrew_rollout_halted 1', async () => (await haltedGauge(d as SimDaemon)) === 1, { timeoutMs: 60_000 });

    // C2 changes only the Linux node: it converges, the held two stay held, and the halt still stands.
    const c2 = await d.push('compute-l1 to 5.0.2', () => d?.setVersion('compute-l1', '5.0.2'));
    await d.until('compute-l1 applied C2', () => d?.daemon.status.get('compute-l1')?.lastAppliedRevision === c2);
    await waitUntil(
      'C2 in force and the gauge still 1',
      async () => d?.daemon.status.current()?.sha === c2 && (await haltedGauge(d)) === 1,
      { timeoutMs: 60_000 },
    );
    for (const w of held) expect(d.daemon.status.get(w)?.waiting).toContain(`rollout of ${c1.slice(0, 12)} halted`);

    // C3 reverts only the failed node's pin: it converges on C3, then the held two go on with C1.
    const c3 = await d.push(`${failed} back to 5.0.1`, () => d?.setVersion(failed, '5.0.1'));
    await convergedAt(d, c3);
    for (const w of held) expect(d.daemon.status.get(w)?.lastAppliedRevision).toBe(c1);
    expect(d.daemon.status.get(failed)?.lastAppliedRevision).toBe(c3);
    await finishedOnceAllApplied(received, c3);
    expect(received.filter((e) => e.kind === 'rollout.finished' && e.revision === c2)).toEqual([]);
    await waitUntil('groundcrew_rollout_halted 0', async () => (await haltedGauge(d as SimDaemon)) === 0, { timeoutMs: 60_000 });
  }, 180_000);

  it('by `groundcrew rollout resume REV`: the held nodes go on, the failed one stays failed; logged and shown', async () => {
    const dir = tempDir();
    const sink = logSink();
    const log = pino({ level: 'warn' }, sink.stream);
    const d = await startSimDaemon({}, log);
    daemons.push(d);
    await d.until('the first revision', () => d.daemon.status.current() !== undefined);
    await convergedAt(d, d.daemon.status.current()?.sha as string);
    for (const w of WINDOWS) d.windows(w).state.faults.failVersions = ['5.0.2'];
    const c1 = await d.push('the Windows nodes to 5.0.2', () => {
      for (const w of WINDOWS) d.setVersion(w, '5.0.2');
    });
    const { failed, held } = await haltedWithTwoHeld(d, c1);
    for (const w of held) d.windows(w).state.faults.failVersions = [];

    const groundcrew = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, [BIN, ...args, '--url', d.url], { encoding: 'utf8', cwd: dir }, (err, stdout, stderr) =>
          resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const emptyToken = join(dir, 'no-token');
    writeFileSync(emptyToken, 'not-the-token\n');
    const refused = await groundcrew('rollout', 'resume', c1.slice(0, 12), '--token-file', emptyToken);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('401');
    expect(d.daemon.status.get(held[0] as string)?.waiting).toContain('halted');

    const resumed = await groundcrew('rollout', 'resume', c1.slice(0, 12), '--token-file', d.daemon.tokenFile);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`rollout of ${c1.slice(0, 12)} resumed: ${failed} no longer counts against its failure budget`);

    await d.until('the held two applied C1', () => held.every((w) => d.daemon.status.get(w)?.lastAppliedRevision === c1));
    expect(d.daemon.status.get(failed)?.state).toBe('stalled');
    await waitUntil('groundcrew_rollout_halted 0', async () => (await haltedGauge(d)) === 0, { timeoutMs: 60_000 });
    const logged = sink.records<{ msg: string; revision?: string; released?: string[] }>();
    expect(logged.find((l) => l.msg.startsWith('rollout halt released by an operator'))).toMatchObject({
      revision: c1,
      released: [failed],
    });
    const page = await (await fetch(`${d.url}/revisions/${c1}`)).text();
    expect(page).toMatch(new RegExp(`id="resumed">Halt released by an operator[^<]*<code>rollout resume</code>[^<]*: ${failed} no longer`));

    // Not halted any more: a second resume says so.
    const again = await groundcrew('rollout', 'resume', c1, '--token-file', d.daemon.tokenFile);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(`409 from /api/rollouts/${c1}/resume: the rollout of ${c1.slice(0, 12)} is not halted`);
  }, 180_000);

  it('on a fresh daemon whose first revision has the bad node', async () => {
    const dir = tempDir();
    const stateDir = join(dir, 'state');
    // The hosts as the daemon would make them (cli/sim-cluster.ts), saved with the fault before it starts.
    const loaded = await loadInventory(EXAMPLE);
    if (!loaded.result.ok) throw new Error('the example inventory does not parse');
    const hostDir = join(stateDir, 'sim-hosts');
    const hosts = simCluster(loaded.result.state, { shells: await SimShells.create(), rebootMs: 0, latencyMs: 0, dir: hostDir });
    for (const w of WINDOWS) {
      const state = hosts.get(w)?.host.state as WindowsState;
      state.faults.failVersions = ['5.0.1'];
      writeFileSync(join(hostDir, `${w}.json`), JSON.stringify(state));
    }
    let d: SimDaemon | undefined;
    const { received, notifications } = await captureSink(dir, () => d);
    d = await startSimDaemon({ notifications, stateDir });
    daemons.push(d);
    await d.until('the first revision', () => d?.daemon.status.current() !== undefined);
    const c1 = d.daemon.status.current()?.sha as string;
    const { failed, held } = await haltedWithTwoHeld(d, c1);
    for (const w of held) d.windows(w).state.faults.failVersions = [];
    await waitUntil('groundcrew_rollout_halted 1', async () => (await haltedGauge(d as SimDaemon)) === 1, { timeoutMs: 60_000 });

    const c2 = await d.push(`${failed} to 5.0.2`, () => d?.setVersion(failed, '5.0.2'));
    await convergedAt(d, c2);
    for (const w of held) expect(d.daemon.status.get(w)?.lastAppliedRevision).toBe(c1);
    await finishedOnceAllApplied(received, c2);
    await waitUntil('groundcrew_rollout_halted 0', async () => (await haltedGauge(d as SimDaemon)) === 0, { timeoutMs: 60_000 });
  }, 180_000);
});
