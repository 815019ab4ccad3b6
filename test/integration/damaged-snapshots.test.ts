// `groundcrew run` as a process, restarted on snapshots the node machine cannot restore (a state it does not
// have, the wrong shape, an older version, unparsable JSON): it keeps running past several resyncs, sets each
// file aside as *.corrupt-*, says so in the log, the node's conditions and its timeline, and every node is
// verified again from its facts, without a second reboot of the Windows nodes it had already rebooted.

import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait-until.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'gc-damaged-'));
const state = join(dir, 'state');
const snapshots = join(state, 'snapshots');
let daemon: ChildProcess | undefined;
afterAll(() => {
  daemon?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Node {
  name: string;
  state: string;
  conditions: { type: string; status: string; reason: string; message: string }[];
  history: { seq: number; event?: string; state: string; detail?: string }[];
}

/** Starts the daemon; resolves with its URL and a reader of its JSON log records. */
async function start(): Promise<{ url: string; records: () => { msg: string; node?: string; file?: string; reason?: string }[] }> {
  const child = spawn(process.execPath, [BIN, 'run', '--config', join(dir, 'groundcrew.yaml')], { stdio: ['ignore', 'pipe', 'pipe'] });
  daemon = child;
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  const records = () =>
    stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; node?: string; url?: string });
  await waitUntil('the daemon to listen', () => records().some((r) => r.url), { timeoutMs: 30_000 });
  return { url: records().find((r) => r.url)?.url as string, records };
}

const nodes = async (url: string) => (await (await fetch(`${url}/api/nodes`)).json()) as Node[];
const node = async (url: string, name: string) => (await (await fetch(`${url}/api/nodes/${name}`)).json()) as Node;
/**
 * Whether each of the six nodes has been seen verified by this daemon, at some check since `seen` was made. Not
 * all at one instant: the resyncs (every 200 ms) re-verify every node, and a pass takes 170 to 400 ms on a loaded
 * 2-core machine, so a moment when all six rest may never come on a busy one (issue 31).
 */
const everySeenVerified = async (url: string, seen: Set<string>) => {
  for (const n of await nodes(url)) if (n.state === 'verified') seen.add(n.name);
  return seen.size === 6;
};
const bootCount = (name: string) =>
  (JSON.parse(readFileSync(join(state, 'sim-hosts', `${name}.json`), 'utf8')) as { bootCount: number }).bootCount;
const stop = async () => {
  const child = daemon;
  child?.kill('SIGTERM');
  await new Promise((resolve) => child?.once('exit', resolve));
};

describe('groundcrew run on damaged snapshots', () => {
  it('sets them aside, keeps running, verifies every node again, and reboots nothing twice', async () => {
    cpSync(join(ROOT, 'inventory-repo-example'), join(dir, 'repo'), { recursive: true });
    writeFileSync(
      join(dir, 'groundcrew.yaml'),
      [
        'source: { path: repo }',
        'stateDir: state',
        'listen: 127.0.0.1:0',
        'transport: sim',
        'sim: { rebootSeconds: 0.1, latencyMs: 0 }',
        'reboot: { timeout: 20s, settle: 50ms }',
        'resyncInterval: 200ms',
        '',
      ].join('\n'),
    );
    const first = await start();
    const converged = new Set<string>();
    // Hang guards, each with its own message, and the test's own limit above their sum (28 s quiet, 75 s beside four
    // CPU hogs; in a whole unit run at a load of 15-25 it passed the old 420 s limit before any wait could say which).
    await waitUntil('the first converge', () => everySeenVerified(first.url, converged), { timeoutMs: 300_000 });
    await stop();
    // Each fresh Windows node took its one reboot (features and test signing, batched); win-compute-3, on the
    // signed vRouter, needed none.
    const boots = Object.fromEntries(['win-compute-1', 'win-compute-2', 'win-compute-3'].map((n) => [n, bootCount(n)]));
    expect(boots).toEqual({ 'win-compute-1': 2, 'win-compute-2': 2, 'win-compute-3': 1 });

    const read = (name: string) => JSON.parse(readFileSync(join(snapshots, `${name}.json`), 'utf8'));
    const unknownState = read('win-compute-1');
    unknownState.snapshot.value = { rebooting: 'flyingToTheMoon' };
    const wrongShape = read('win-compute-2');
    wrongShape.snapshot.context.phases = 'prereqs,testSigning';
    const older = read('ctrl1');
    delete older.version;
    const damaged = {
      'win-compute-1': JSON.stringify(unknownState),
      'win-compute-2': JSON.stringify(wrongShape),
      ctrl1: JSON.stringify(older),
      'compute-l1': '{"version":1,"digest":"',
    };
    for (const [name, text] of Object.entries(damaged)) writeFileSync(join(snapshots, `${name}.json`), text);

    const second = await start();
    // Each node's history as this daemon wrote it, gathered at every check: the history keeps a node's last 200
    // records, and the resyncs' passes (some 8 records each on a Windows node) push older ones out within
    // seconds, so one read at the end may no longer hold the set-aside note (seen under load).
    const histories = new Map<string, Map<number, Node['history'][number]>>();
    const gather = async () => {
      for (const name of ['win-compute-1', 'win-compute-2', 'win-compute-3', 'ctrl1', 'compute-l1']) {
        const records = histories.get(name) ?? new Map();
        histories.set(name, records);
        for (const t of (await node(second.url, name)).history) records.set(t.seq, t);
      }
    };
    const verifiedAgain = new Set<string>();
    await waitUntil(
      () => `every node verified again (seen: ${[...verifiedAgain].join(', ') || 'none'})`,
      async () => {
        await gather();
        return everySeenVerified(second.url, verifiedAgain);
      },
      { timeoutMs: 300_000 },
    );
    // Several resyncs (every 200 ms) later, it still runs, and every node comes back to verified. It used to hold
    // at any instant only because snapshot fsyncs blocked the event loop, and the API answered between passes
    // (issue-18-hook measured it: 7 samples in 3 s got through then, 138 to 168 now).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(daemon?.exitCode).toBeNull();
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    const seen = new Set<string>();
    await waitUntil(
      'every node seen verified after the resyncs',
      async () => {
        await gather();
        return everySeenVerified(second.url, seen);
      },
      { timeoutMs: 240_000 },
    );

    // Each damaged file set aside byte for byte, and a fresh snapshot in its place.
    const files = readdirSync(snapshots);
    for (const [name, text] of Object.entries(damaged)) {
      const aside = files.filter((f) => f.startsWith(`${name}.json.corrupt-`));
      expect(aside, name).toHaveLength(1);
      expect(readFileSync(join(snapshots, aside[0] as string), 'utf8')).toBe(text);
      expect(read(name).version).toBe(1);
    }
    expect(files.filter((f) => f.startsWith('win-compute-3.json.corrupt-'))).toEqual([]);

    // Said in the log, the node's conditions and its timeline; the node started over and was verified.
    const reasons = {
      'win-compute-1': /state \{"rebooting":"flyingToTheMoon"\} is not a state of this groundcrew's node machine/,
      'win-compute-2': /wrong shape at snapshot\.context\.phases/,
      ctrl1: /expected snapshot version 1, found no version/,
      'compute-l1': /unparsable JSON/,
    };
    for (const [name, reason] of Object.entries(reasons)) {
      const logged = second.records().find((r) => r.msg === 'snapshot set aside; the node starts over from its facts' && r.node === name);
      expect(logged?.reason, name).toMatch(reason);
      const n = await node(second.url, name);
      expect(
        n.conditions.find((c) => c.type === 'SnapshotSetAside'),
        name,
      ).toMatchObject({
        status: 'True',
        reason: 'Unrestorable',
        message: expect.stringMatching(reason),
      });
      const history = [...(histories.get(name)?.entries() ?? [])].sort(([a], [b]) => a - b).map(([, t]) => t);
      const noted = history.findIndex((t) => t.event === 'snapshot.set-aside');
      expect(history[noted]?.detail, name).toMatch(reason);
      // Started over (converging) and verified after that. Not the last entry: the resyncs (every 200 ms) re-verify
      // every node, so the newest entry may be a later pass's `converging` (issue 31: it failed so under load).
      const after = history.slice(noted + 1).map((t) => t.state);
      const started = after.indexOf('converging');
      expect(started, name).toBeGreaterThanOrEqual(0);
      expect(after.slice(started + 1), name).toContain('verified');
    }
    expect((await node(second.url, 'win-compute-3')).conditions.some((c) => c.type === 'SnapshotSetAside')).toBe(false);

    // No Windows node rebooted again: phases found in their desired state need no reboot.
    for (const [name, count] of Object.entries(boots)) expect([name, bootCount(name)]).toEqual([name, count]);
    await stop();
  }, 900_000);
});
