// The reconciler on the simulated six-node example cluster: from scratch, an upgrade under maxUnavailable 1,
// a bad version halting its rollout after the failure budget, a revert, and a node removed from the inventory.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SimExecutor, SimShells } from '../../../src/dataplane/sim-executor.js';
import type { DesiredState } from '../../../src/inventory/desired-state.js';
import { loadInventory } from '../../../src/inventory/load-inventory.js';
import type { StatusStore } from '../../../src/reconciler/status-store.js';
import type { WindowsHost } from '../../../src/sim/windows/windows-host.js';
import { simReconciler } from '../../support/sim-reconciler.js';
import { waitUntil } from '../../support/wait-until.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'inventory-repo-example');
const WINDOWS = ['win-compute-1', 'win-compute-2', 'win-compute-3'];

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A working copy of the example repo that a test edits between "commits". */
function repo(): { dir: string; load: () => Promise<DesiredState>; setVersion: (node: string, v: string) => void } {
  const dir = mkdtempSync(join(tmpdir(), 'gc-reconciler-'));
  cpSync(EXAMPLE, dir, { recursive: true });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    load: async () => {
      const { result } = await loadInventory(dir);
      if (!result.ok) throw new Error(JSON.stringify(result.errors));
      return result.state;
    },
    setVersion: (node, v) => writeFileSync(join(dir, 'nodes', `${node}.yaml`), `versions:\n  contrail: "${v}"\n`),
  };
}

function cluster(state: DesiredState) {
  const c = simReconciler(state, { shells, rebootMs: 100 });
  cleanups.push(() => c.reconciler.stop());
  return c;
}

/** The example, converged at r1 on fresh simulated hosts. */
async function converged(r: ReturnType<typeof repo>) {
  const c = cluster(await r.load());
  const state = await r.load();
  const done = c.reconciler.settled();
  c.reconciler.apply({ sha: 'r1', state });
  await done;
  return { r, ...c };
}

/** The most nodes that ever held the disruption budget at once, and how many disruptions there were. */
function disruptions(status: StatusStore): { max: number; count: number } {
  const records = status
    .list()
    .flatMap((n) => status.history(n.name).map((t) => ({ node: n.name, ...t })))
    .filter((t) => t.event)
    .sort((a, b) => a.seq - b.seq);
  let down = 0;
  let max = 0;
  for (const r of records) {
    down += r.event === 'disruption.started' ? 1 : -1;
    max = Math.max(max, down);
  }
  return { max, count: records.filter((r) => r.event === 'disruption.started').length };
}

/** The Contrail build the vRouter MSI was installed from (its product version is fixed: sim/windows/msi-products.ts). */
const vrouterVersion = (h: WindowsHost) => Object.values(h.state.products).find((p) => p.name === 'vRouter')?.build;

describe('the reconciler on the simulated example cluster', () => {
  it('converges six nodes from scratch and upgrades them with never two data planes down at once', async () => {
    const r = repo();
    const { status, reconciler, host, executors } = cluster(await r.load());
    const first = reconciler.settled();
    reconciler.apply({ sha: 'r1', state: await r.load() });
    await first;
    expect(status.list().map((n) => [n.name, n.state])).toEqual(
      ['compute-l1', 'compute-l2', 'ctrl1', ...WINDOWS].map((n) => [n, 'verified']),
    );
    for (const w of WINDOWS) expect(vrouterVersion(host(w))).toBe('5.0.1');

    for (const node of [...WINDOWS, 'compute-l1']) r.setVersion(node, '5.0.2');
    const r2 = await r.load();
    const second = reconciler.settled();
    reconciler.apply({ sha: 'r2', state: r2 });
    await second;
    for (const n of status.list()) expect([n.name, n.state, n.lastError]).toEqual([n.name, 'verified', undefined]);
    for (const w of WINDOWS) {
      expect(vrouterVersion(host(w))).toBe('5.0.2');
      expect(status.get(w)).toMatchObject({ desiredRevision: 'r2', lastAppliedRevision: 'r2', observedVersions: { contrail: '5.0.2' } });
    }
    expect(status.get('compute-l1')?.observedVersions).toEqual({ contrail: '5.0.2' });
    // compute-l2 and ctrl1 were not changed by r2: no new pass, still on r1.
    expect(status.get('compute-l2')).toMatchObject({ desiredRevision: 'r1', lastAppliedRevision: 'r1' });
    // Each Windows node took its reboot and its vRouter install, each Linux compute its compose up.
    const { max, count } = disruptions(status);
    expect(count).toBeGreaterThanOrEqual(8);
    expect(max).toBe(1);
    // Run reports: the upgrade is intentional, with the MSI changes in it.
    const report = status.reports('win-compute-1').at(-1);
    expect(report).toMatchObject({ revision: 'r2', corrective: false, result: 'verified' });
    expect(report?.phases.flatMap((p) => p.resources).find((x) => x.resource === 'msi/vRouter')?.status).toBe('changed');
    expect((executors.get('ctrl1') as SimExecutor).stats.reboots).toBe(0);
  }, 60_000);

  it('halts a bad version after the failure budget: untouched nodes keep the old one; a revert heals', async () => {
    const { r, status, reconciler, host } = await converged(repo());

    for (const w of WINDOWS) {
      host(w).state.faults.failVersions = ['5.1.0'];
      r.setVersion(w, '5.1.0');
    }
    reconciler.apply({ sha: 'bad', state: await r.load() });
    // One node fails on the bad build; the other two wait in front of their vRouter install.
    await waitUntil('one Windows node stalled and two held', () => {
      const nodes = WINDOWS.map((w) => status.get(w));
      return nodes.filter((n) => n?.state === 'stalled').length === 1 && nodes.filter((n) => n?.waiting?.includes('halted')).length === 2;
    });
    const failed = WINDOWS.filter((w) => status.get(w)?.state === 'stalled');
    const held = WINDOWS.filter((w) => !failed.includes(w));
    expect(status.get(failed[0] as string)?.lastError?.code).toBe('GC_MSI_FAILED');
    expect(status.get(failed[0] as string)?.conditions.find((c) => c.type === 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'GC_MSI_FAILED',
    });
    expect(reconciler.rollout.isHalted('bad')).toBe(true);
    for (const w of held) {
      expect(vrouterVersion(host(w))).toBe('5.0.1');
      expect(host(w).state.services['contrail-vrouter-agent']?.status).toBe('Running');
      expect(status.get(w)?.waiting).toMatch(/rollout of bad halted: win-compute-\d failed on it \(failure budget 1\)/);
      expect(host(w).state.journal.filter((j) => j.startsWith('msi-'))).not.toContain('msi-install vRouter 5.1.0');
    }
    // Give the halted nodes time to (wrongly) move on: they must not.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const w of held) expect(vrouterVersion(host(w))).toBe('5.0.1');

    for (const w of WINDOWS) r.setVersion(w, '5.0.1');
    const reverted = await r.load();
    const healed = reconciler.settled();
    reconciler.apply({ sha: 'revert', state: reverted });
    await healed;
    for (const w of WINDOWS) {
      expect(status.get(w)?.state).toBe('verified');
      expect(vrouterVersion(host(w))).toBe('5.0.1');
    }
  }, 60_000);

  it('drift at resync: autocorrect puts it back and reports it as corrective; monitor only reports it', async () => {
    const r = repo();
    writeFileSync(join(r.dir, 'nodes', 'win-compute-2.yaml'), 'versions:\n  contrail: "5.0.1"\nmode: monitor\n');
    const { status, reconciler, host } = cluster(await r.load());
    const first = reconciler.settled();
    reconciler.apply({ sha: 'r1', state: await r.load() });
    await first;
    for (const w of ['win-compute-1', 'win-compute-2']) host(w).stopService('contrail-vrouter-agent', true);
    const finished = (w: string) => status.reports(w).length;
    const before = { one: finished('win-compute-1'), two: finished('win-compute-2') };
    reconciler.resync();
    const done = (w: string, n: number) => status.reports(w).length > n && status.reports(w).at(-1)?.finishedAt !== undefined;
    await waitUntil(
      'a new finished report on win-compute-1 and 2',
      () => done('win-compute-1', before.one) && done('win-compute-2', before.two),
    );
    const fixed = status.reports('win-compute-1').at(-1);
    expect(fixed).toMatchObject({ revision: 'r1', corrective: true, result: 'verified' });
    expect(
      fixed?.phases
        .flatMap((p) => p.resources)
        .filter((x) => x.status === 'changed')
        .map((x) => x.resource),
    ).toContain('service/contrail-vrouter-agent/running');
    expect(host('win-compute-1').state.services['contrail-vrouter-agent']?.status).toBe('Running');

    expect(host('win-compute-2').state.services['contrail-vrouter-agent']?.status).toBe('Stopped');
    expect(status.get('win-compute-2')).toMatchObject({ state: 'verified', drift: true });
    expect(status.get('win-compute-2')?.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'Drifted' });
    const seen = status.reports('win-compute-2').at(-1);
    expect(seen?.phases.flatMap((p) => p.resources).some((x) => x.status === 'changed')).toBe(false);
  }, 60_000);

  it('a node removed from the inventory is orphaned by default, and deconfigured when the policy says so', async () => {
    const { r, status, reconciler, host } = await converged(repo());

    const instances = join(r.dir, 'instances.yaml');
    const original = readFileSync(instances, 'utf8');
    const without = (name: string) => {
      const lines = original.split('\n');
      const start = lines.findIndex((l) => l.startsWith(`  ${name}:`));
      const end = lines.findIndex((l, i) => i > start && /^ {0,2}\S/.test(l));
      return [...lines.slice(0, start), ...lines.slice(end === -1 ? lines.length : end)].join('\n');
    };
    writeFileSync(instances, without('win-compute-3'));
    rmSync(join(r.dir, 'nodes', 'win-compute-3.yaml'));
    const journal = host('win-compute-3').state.journal.length;
    reconciler.apply({ sha: 'r2', state: await r.load() });
    await reconciler.settled();
    await waitUntil('win-compute-3 orphaned', () => status.get('win-compute-3')?.state === 'orphaned');
    expect(host('win-compute-3').state.journal.slice(journal)).toEqual([]);

    writeFileSync(instances, without('win-compute-2'));
    rmSync(join(r.dir, 'nodes', 'win-compute-2.yaml'));
    writeFileSync(join(r.dir, 'groundcrew.yaml'), 'rollout:\n  removalPolicy: deconfigure\n');
    reconciler.apply({ sha: 'r3', state: await r.load() });
    await waitUntil('win-compute-2 removed', () => status.get('win-compute-2')?.state === 'removed');
    const h = host('win-compute-2');
    expect(Object.values(h.state.products).map((p) => p.name)).toEqual([]);
    expect(h.state.services['contrail-vrouter-agent']).toBeUndefined();
    expect(h.state.journal).toContain('delete-service contrail-vrouter-agent');
    // The deconfigure pass is reported under the commit that removed the node: a revision field holds a sha (or a
    // test's name for one), never a word standing for one ('removed', before issue 31).
    expect(status.reports('win-compute-2').at(-1)).toMatchObject({ revision: 'r3', phases: [{ phase: 'deconfigure' }] });
  }, 60_000);
});
