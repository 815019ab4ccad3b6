// Saves are written off the event loop, so the ordering that crash safety needs is the executor's: a command
// to a node goes out only once the node's snapshot saved before it is on disk. Shown on one command, on a
// failed write, and on the example cluster converging from scratch (the Windows nodes reboot): at every
// command, the file on disk is the snapshot saved before the command was issued (or a newer one), and each
// reboot finds there the boot id read before it.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Command, CommandResult, Executor } from '../../../src/dataplane/executor.js';
import { FencedExecutor } from '../../../src/dataplane/fenced-executor.js';
import { type SimExecutor, SimShells } from '../../../src/dataplane/sim-executor.js';
import { loadInventory } from '../../../src/inventory/load-inventory.js';
import { convergeCluster } from '../../../src/reconciler/converge.js';
import { localCoordination } from '../../../src/reconciler/local-coordination.js';
import { SnapshotStore } from '../../../src/reconciler/snapshot-store.js';
import { simCluster } from '../../support/sim-cluster.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'inventory-repo-example');
const OK: CommandResult = { exitCode: 0, stdout: '', stderr: '', durationMs: 0 };

/** An executor that records, for each command, what the node's snapshot file held when it arrived. */
function recording(file: string): Executor & { seen: (string | undefined)[] } {
  const seen: (string | undefined)[] = [];
  return {
    os: 'linux',
    seen,
    run: async () => {
      seen.push(readOrUndefined(file));
      return OK;
    },
    close: async () => undefined,
  };
}

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A node's executor behind the single process's fence, as the reconciler builds it (node-runtime.ts `fencedAccess`). */
const fenced = (inner: Executor, node: string, store: SnapshotStore) =>
  new FencedExecutor(inner, () => localCoordination({ snapshots: store }).fence.guard(node));

describe("the single process's fence: the node's snapshot on disk", () => {
  it('sends a command only once the snapshot saved before it is on disk (without it, the command overtakes the write)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-durable-'));
    const store = new SnapshotStore(dir);
    const file = join(dir, 'n1.json');

    const bare = recording(file);
    store.save('n1', { step: 1 });
    await bare.run({ script: 'true' }, { timeoutMs: 1000 });
    // The save returned before its write: a command sent straight away finds nothing on disk yet.
    expect(bare.seen).toEqual([undefined]);
    await store.flush('n1');

    const inner = recording(file);
    const exec = fenced(inner, 'n1', store);
    store.save('n1', { step: 2 });
    store.save('n1', { step: 3 });
    await exec.run({ script: 'true' }, { timeoutMs: 1000 });
    expect(inner.seen).toEqual([JSON.stringify({ step: 3 })]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a snapshot that cannot be written stops the node commands, retryably, until a later save lands', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-durable-'));
    const snapshots = join(dir, 'snapshots');
    const said: string[] = [];
    const store = new SnapshotStore(snapshots, (m) => said.push(m));
    const inner = recording(join(snapshots, 'n1.json'));
    const exec = fenced(inner, 'n1', store);
    // The directory replaced by a file: every write fails (ENOTDIR), as a full or broken disk would.
    rmSync(snapshots, { recursive: true });
    writeFileSync(snapshots, 'not a directory');
    store.save('n1', { step: 1 });
    const refused = await exec.run({ script: 'true' }, { timeoutMs: 1000 }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'GC_SNAPSHOT_WRITE', retryable: true });
    expect((refused as Error).message).toMatch(/^n1: its state could not be saved \(.*ENOTDIR.*\); nothing sent until it is$/);
    expect(inner.seen).toEqual([]);
    expect(said[0]).toMatch(/^snapshot of n1 could not be written \(.*ENOTDIR/);
    // Still refused while nothing new was written.
    await expect(exec.run({ script: 'true' }, { timeoutMs: 1000 })).rejects.toMatchObject({ code: 'GC_SNAPSHOT_WRITE' });

    rmSync(snapshots);
    mkdirSync(snapshots);
    store.save('n1', { step: 2 });
    await exec.run({ script: 'true' }, { timeoutMs: 1000 });
    expect(inner.seen).toEqual([JSON.stringify({ step: 2 })]);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('snapshots and commands on a converging cluster', () => {
  let shells: SimShells;
  beforeAll(async () => {
    shells = await SimShells.create();
  });

  it('every command finds on disk what was saved before it was issued; each reboot finds the boot id it was read with', {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-durable-'));
    const { result } = await loadInventory(EXAMPLE);
    if (!result.ok) throw new Error('example inventory invalid');
    const store = new SnapshotStore(join(dir, 'snapshots'));
    // Every text the reconciler saved for each node, in order, and how many there were when each command was
    // issued: a machine's invoked actor issues its command as it enters a state, before that state's own save
    // (which is why the reboot sub-machine records the boot id one step before the reboot).
    const texts = new Map<string, string[]>();
    const savedOf = (node: string) => texts.get(node) ?? [];
    const issuedAfter = new Map<string, number>();
    const save = store.save.bind(store);
    store.save = (node, snapshot) => {
      texts.set(node, [...savedOf(node), JSON.stringify(snapshot)]);
      save(node, snapshot);
    };
    const flush = store.flush.bind(store);
    store.flush = (node) => {
      issuedAfter.set(node, savedOf(node).length - 1);
      return flush(node);
    };
    const executors = simCluster(result.state, { shells, rebootMs: 50, latencyMs: 0 });
    const behind: string[] = [];
    const reboots: { node: string; previousBootId: unknown; bootId: string }[] = [];
    let commands = 0;
    const watched = (node: string): Executor => {
      const inner = executors.get(node) as SimExecutor;
      let lastBootId = '';
      return {
        os: inner.os,
        run: async (cmd: Command, opts) => {
          commands++;
          const onDisk = readOrUndefined(join(store.dir, `${node}.json`));
          const at = onDisk === undefined ? -1 : savedOf(node).lastIndexOf(onDisk);
          if (at < (issuedAfter.get(node) ?? -1))
            behind.push(`${node} ${cmd.label ?? '?'}: on disk #${at}, saved before it #${issuedAfter.get(node)}`);
          if (cmd.label === 'reboot') {
            const machine = JSON.parse(onDisk ?? '{}') as { snapshot?: { context?: { previousBootId?: unknown } } };
            reboots.push({ node, previousBootId: machine.snapshot?.context?.previousBootId, bootId: lastBootId });
          }
          const r = await inner.run(cmd, opts);
          if (cmd.label === 'boot id') lastBootId = r.stdout.trim();
          return r;
        },
        close: () => inner.close(),
      };
    };
    const reports = await convergeCluster(result.state, (name) => ({ exec: watched(name), poll: { initialMs: 10, maxMs: 40 } }), {
      revision: 'r1',
      store,
      limits: { settleMs: 20, rebootTimeoutMs: 10_000, backoffBaseMs: 20, backoffMaxMs: 200 },
    });
    expect(reports.map((r) => r.state)).toEqual(reports.map(() => 'verified'));
    expect(commands).toBeGreaterThan(100);
    expect(behind).toEqual([]);
    // The fresh Windows nodes reboot once each, and the boot id read before it was on disk when it went out.
    expect(reboots.length).toBeGreaterThan(0);
    for (const r of reboots) expect(r).toEqual({ node: r.node, previousBootId: r.bootId, bootId: expect.stringMatching(/\S/) });
    rmSync(dir, { recursive: true, force: true });
  });
});
