/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The operator's stories, end to end: the real daemon (a process) against a lab of real sshd hosts, driven
// only by git push, webhooks, the CLI and the HTTP API. The stories run in order on one cluster, as a
// cluster's life does: deploy, re-check, upgrade, roll back, attacks, mistakes, drift, a bad build, a crash,
// a dead node, and scale-in. win-compute-1 (Server 2016) and win-compute-2 (Server 2019) run every script groundcrew
// sends them in real pwsh (the lab's bridge to their simulated state); win-compute-3 stays on the TypeScript
// interpreter (test/support/example-lab.ts says why).

import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { launchBrowser, SCREENSHOTS } from '../browser/browser.js';
import { ssh } from '../lab/ssh.js';
import { waitUntil } from '../support/wait-until.js';
import { E2eCluster, LINUX, type NodeJson, sleep, WINDOWS } from './cluster.js';

let cluster: E2eCluster;
let browser: Browser;
const ALL = [...LINUX, ...WINDOWS];
/** Each Windows command starts a real pwsh on its lab host (a second or more on a busy machine). */
const STORY_MS = 900_000;

beforeAll(async () => {
  cluster = await E2eCluster.start();
  browser = await launchBrowser();
}, STORY_MS);

afterAll(async () => {
  await browser?.close();
  await cluster?.stop();
});

/** The Contrail build a product was installed from (its MSI's own version is fixed: sim/windows/msi-products.ts). */
const msi = (node: string, product = 'vRouter') =>
  Object.values(cluster.lab.windows(node).state.products).find((p) => p.name === product)?.build;
const byName = (nodes: NodeJson[]) => Object.fromEntries(nodes.map((n) => [n.name, n]));

describe('an operator and groundcrew', () => {
  it(
    '1. first deploy: every node verified; Windows reboots at most once (the prepared host never), Linux never; the page follows live',
    async () => {
      const engines = cluster.lab.hosts
        .filter((h) => h.os === 'windows')
        .map((h) => [h.name, cluster.lab.windows(h.name).state.build, h.engine]);
      expect(engines).toEqual([
        ['win-compute-1', 14393, 'real-pwsh'],
        ['win-compute-2', 17763, 'real-pwsh'],
        ['win-compute-3', 17763, 'interpreter'],
      ]);
      await cluster.startDaemon();
      const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
      await page.goto(`${cluster.url}/`);
      await page.waitForSelector('#nodes tbody tr');
      // Seen converging, then verified, on the same page: no reload in between.
      const busyAtFirst = await page.locator('#nodes tbody tr:not([data-state="verified"])').count();
      expect(busyAtFirst).toBeGreaterThan(0);
      const navigations: string[] = [];
      page.on('framenavigated', (f) => navigations.push(f.url()));
      await page.waitForFunction(
        () => {
          const rows = [...document.querySelectorAll('#nodes tbody tr')];
          return rows.length === 6 && rows.every((r) => (r as HTMLElement).dataset.state === 'verified');
        },
        undefined,
        { timeout: STORY_MS, polling: 100 },
      );
      expect(navigations).toEqual([]);
      expect(await page.locator('#nodes tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.node))).toEqual([
        'compute-l1',
        'compute-l2',
        'ctrl1',
        ...WINDOWS,
      ]);
      await page.screenshot({ path: join(SCREENSHOTS, 'overview.png'), fullPage: true });

      await cluster.converged(cluster.head());
      expect(Object.fromEntries(cluster.lab.hosts.map((h) => [h.name, h.reboots]))).toEqual({
        ctrl1: 0,
        'compute-l1': 0,
        'compute-l2': 0,
        'win-compute-1': 1,
        'win-compute-2': 1,
        'win-compute-3': 0,
      });
      for (const w of WINDOWS) expect(msi(w)).toBe('5.0.1');

      await page.goto(`${cluster.url}/nodes/win-compute-1`);
      await page.waitForSelector('#diagram .state.lit');
      expect(await page.locator('#diagram .state.lit').first().getAttribute('data-state')).toBe('verified');
      expect(await page.locator('#timeline tbody tr').count()).toBeGreaterThan(10);
      expect(await page.locator('#timeline').innerText()).toContain('waitingForBoot');
      expect(await page.locator('#report').innerText()).toContain('msi/vRouter');
      await page.screenshot({ path: join(SCREENSHOTS, 'node-win-compute-1.png'), fullPage: true });
      await page.close();
    },
    STORY_MS,
  );

  it(
    '2. idempotency: a reconcile of the converged cluster only reads (one command per phase) and reboots nothing',
    async () => {
      const counts = await cluster.commandCounts();
      const journals = cluster.journals();
      const reboots = cluster.lab.hosts.map((h) => h.reboots);
      const before = byName(await cluster.nodes());
      await cluster.reconcile();
      await cluster.waitFor('a second pass on every node', (nodes) =>
        nodes.every((n) => n.state === 'verified' && n.since !== before[n.name]?.since),
      );
      const after = await cluster.commandCounts();
      for (const name of ALL) {
        // One fact-reading command per phase that runs (rebootWait runs nothing), nothing else.
        const phases = (before[name]?.phases ?? []).filter((p) => p !== 'rebootWait').length;
        expect([name, (after[name] ?? 0) - (counts[name] ?? 0)]).toEqual([name, phases]);
      }
      expect(cluster.journals()).toEqual(journals);
      expect(cluster.lab.hosts.map((h) => h.reboots)).toEqual(reboots);
    },
    STORY_MS,
  );

  it(
    '3. upgrade: a version bump for two Windows nodes changes those two, and only them',
    async () => {
      const counts = await cluster.commandCounts();
      const sha = await cluster.push('upgrade win-compute-1 and -2 to 5.0.2', () => {
        cluster.setVersion('win-compute-1', '5.0.2');
        cluster.setVersion('win-compute-2', '5.0.2');
      });
      const nodes = byName(await cluster.converged(sha));
      for (const w of ['win-compute-1', 'win-compute-2']) {
        for (const product of ['vRouter', 'Agent', 'vRouter utilities', 'Contrail Docker Driver'])
          expect([w, product, msi(w, product)]).toEqual([w, product, '5.0.2']);
        expect(nodes[w]).toMatchObject({ desiredRevision: sha, lastAppliedRevision: sha, observedVersions: { contrail: '5.0.2' } });
      }
      const after = await cluster.commandCounts();
      for (const other of [...LINUX, 'win-compute-3']) expect([other, after[other]]).toEqual([other, counts[other]]);
      expect(msi('win-compute-3')).toBe('5.0.1');
    },
    STORY_MS,
  );

  it(
    '4. rollback: git revert of the bump brings both back to the old version',
    async () => {
      const sha = await cluster.push('revert the upgrade', () => cluster.git('revert', '--no-commit', 'HEAD'));
      await cluster.converged(sha);
      for (const w of ['win-compute-1', 'win-compute-2']) expect(msi(w)).toBe('5.0.1');
    },
    STORY_MS,
  );

  it(
    '10. webhook security: forged, unsigned and replayed hooks change nothing',
    async () => {
      cluster.setVersion('win-compute-1', '5.0.2');
      cluster.git('commit', '-qam', 'an upgrade pushed while someone forges hooks');
      cluster.git('push', '-q', 'origin', 'main');
      const counts = await cluster.commandCounts();
      const revisions = await cluster.revisions();
      const forged = await cluster.hook({ secret: 'not-the-secret' });
      const unsigned = await cluster.hook({ headers: { 'x-hub-signature-256': '' } });
      const replayed = await cluster.hook({ delivery: 'delivery-1' });
      expect([forged.status, unsigned.status, replayed.status]).toEqual([401, 401, 200]);
      await sleep(1000);
      expect(await cluster.revisions()).toEqual(revisions);
      expect(await cluster.commandCounts()).toEqual(counts);
      // Put things back as they were, through the front door.
      const sha = await cluster.push('back to 5.0.1', () => cluster.setVersion('win-compute-1', '5.0.1'));
      await cluster.converged(sha);
    },
    STORY_MS,
  );

  it(
    '7. bad commit: a typo is rejected with file:line:col on the page and in `groundcrew status`; no host hears of it; the fix converges',
    async () => {
      const counts = await cluster.commandCounts();
      const good = (await cluster.revisions()).find((r) => r.accepted)?.sha;
      const bad = await cluster.push('typo', () =>
        cluster.edit('instances.yaml', (t) => t.replace('provider: bms_win', 'provider: bms_wn')),
      );
      let revisions = await cluster.revisions();
      for (let i = 0; i < 100 && revisions[0]?.sha !== bad; i++) {
        await sleep(50);
        revisions = await cluster.revisions();
      }
      expect(revisions[0]).toMatchObject({ sha: bad, accepted: false });
      expect(revisions[0]?.errors?.[0]).toMatch(/^instances\.yaml:\d+:\d+: provider "bms_wn" is not known/);
      expect(revisions.find((r) => r.accepted)?.sha).toBe(good);
      const status = await cluster.cli('status');
      expect(status.stdout).toContain(`revision ${bad.slice(0, 12)} REJECTED`);
      expect(status.stdout).toMatch(/instances\.yaml:\d+:\d+: provider "bms_wn"/);
      const page = await browser.newPage();
      await page.goto(`${cluster.url}/`);
      await page.waitForSelector('#rejected .rejected');
      expect(await page.locator('#rejected').innerText()).toMatch(/instances\.yaml:\d+:\d+: provider "bms_wn" is not known/);
      await page.close();
      expect(await cluster.commandCounts()).toEqual(counts);
      const fixed = await cluster.push('fix the typo', () =>
        cluster.edit('instances.yaml', (t) => t.replace('provider: bms_wn', 'provider: bms_win')),
      );
      await cluster.converged(fixed);
    },
    STORY_MS,
  );

  it(
    '8. drift: autocorrect puts a stopped service back and says so; monitor only reports it',
    async () => {
      cluster.lab.windows('win-compute-2').stopService('contrail-vrouter-agent', true);
      await cluster.reconcile(['win-compute-2']);
      await cluster.waitFor(
        'the correction',
        () => cluster.lab.windows('win-compute-2').state.services['contrail-vrouter-agent']?.status === 'Running',
      );
      await cluster.converged(cluster.head(), ['win-compute-2']);
      const fixed = (await cluster.node('win-compute-2')).reports?.at(-1) as {
        corrective: boolean;
        phases: { resources: { resource: string; status: string }[] }[];
      };
      expect(fixed.corrective).toBe(true);
      expect(
        fixed.phases
          .flatMap((p) => p.resources)
          .filter((r) => r.status === 'changed')
          .map((r) => r.resource),
      ).toContain('service/contrail-vrouter-agent/running');

      const sha = await cluster.push('win-compute-2: monitor only', () => cluster.setVersion('win-compute-2', '5.0.1', 'monitor'));
      await cluster.converged(sha);
      cluster.lab.windows('win-compute-2').stopService('contrail-vrouter-agent', true);
      const journal = cluster.lab.windows('win-compute-2').state.journal.length;
      await cluster.reconcile(['win-compute-2']);
      const [seen] = await cluster.waitFor('the drift report', (nodes) => nodes.some((n) => n.name === 'win-compute-2' && n.drift));
      expect(seen).toBeDefined();
      const node = await cluster.node('win-compute-2');
      expect(node.conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'Drifted' });
      expect(cluster.lab.windows('win-compute-2').state.services['contrail-vrouter-agent']?.status).toBe('Stopped');
      expect(cluster.lab.windows('win-compute-2').state.journal.length).toBe(journal);
      const back = await cluster.push('win-compute-2: autocorrect again', () => cluster.setVersion('win-compute-2', '5.0.1'));
      await cluster.converged(back);
      expect(cluster.lab.windows('win-compute-2').state.services['contrail-vrouter-agent']?.status).toBe('Running');
    },
    STORY_MS,
  );

  it(
    '11. rolling safety: a version whose MSI fails halts after the failure budget; the page says why; untouched nodes keep working',
    async () => {
      for (const w of WINDOWS) await cluster.lab.fault(w, { failVersions: ['5.1.0'] });
      const bad = await cluster.push('upgrade every Windows node to 5.1.0', () => {
        for (const w of WINDOWS) cluster.setVersion(w, '5.1.0');
      });
      const nodes = await cluster.waitFor(
        'one failure and a halted rollout',
        (ns) => {
          const win = ns.filter((n) => WINDOWS.includes(n.name));
          return win.filter((n) => n.state === 'stalled').length === 1 && win.filter((n) => n.waiting?.includes('halted')).length === 2;
        },
        90_000,
      );
      const failed = nodes.find((n) => WINDOWS.includes(n.name) && n.state === 'stalled') as NodeJson;
      expect(failed.lastError?.code).toBe('GC_MSI_FAILED');
      const held = nodes.filter((n) => WINDOWS.includes(n.name) && n.name !== failed.name);
      for (const n of held) {
        expect(n.waiting).toMatch(new RegExp(`rollout of ${bad.slice(0, 12)} halted: ${failed.name} failed on it`));
        expect(msi(n.name)).toBe('5.0.1');
        expect(cluster.lab.windows(n.name).state.services['contrail-vrouter-agent']?.status).toBe('Running');
      }
      const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
      await page.goto(`${cluster.url}/`);
      await page.waitForSelector(`#nodes tr[data-node="${failed.name}"] .reason`);
      expect(await page.locator(`#nodes tr[data-node="${failed.name}"] .reason`).innerText()).toContain('GC_MSI_FAILED');
      for (const n of held) expect(await page.locator(`#nodes tr[data-node="${n.name}"] .reason`).innerText()).toContain('halted');
      await page.screenshot({ path: join(SCREENSHOTS, 'overview-halted.png'), fullPage: true });
      await page.close();

      for (const w of WINDOWS) await cluster.lab.fault(w, { failVersions: [] });
      const healed = await cluster.push('revert the bad upgrade', () => cluster.git('revert', '--no-commit', 'HEAD'));
      await cluster.converged(healed);
      for (const w of WINDOWS) expect(msi(w)).toBe('5.0.1');
    },
    STORY_MS,
  );

  it(
    '5. crash: SIGKILL while a Windows node reboots; after a restart it converges with no second reboot',
    async () => {
      // A reinstalled host: it needs its features again, and so one reboot.
      cluster.lab.replaceModel('win-compute-2', WindowsHost.fresh({ hostname: 'win-compute-2' }));
      const reboots = cluster.lab.host('win-compute-2').reboots;
      await cluster.reconcile(['win-compute-2']);
      const deadline = Date.now() + 60_000;
      while (!cluster.lab.host('win-compute-2').rebooting && Date.now() < deadline) await sleep(10);
      expect(cluster.lab.host('win-compute-2').rebooting).toBe(true);
      await cluster.kill9();
      await cluster.startDaemon();
      await cluster.converged(cluster.head());
      expect(cluster.lab.host('win-compute-2').reboots - reboots).toBe(1);
      expect(msi('win-compute-2')).toBe('5.0.1');
    },
    STORY_MS,
  );

  it(
    '6. unreachable: a node that never comes back from its reboot ends stalled with a timeout reason, while the rest converge',
    async () => {
      // Two fresh hosts, each needing one reboot, under `maxUnavailable: 1` and `failureBudget: 1`. Started together,
      // whichever took the disruption slot first decided the story (seen under two CPU hogs): win-compute-1 first
      // held it through its whole reboot.timeout, its timeout then halted the revision's rollout, and the halt held
      // win-compute-2 before its reboot, rightly (a halt stops nodes that have not yet taken their data plane down).
      // So win-compute-2 goes first, and win-compute-1 is asked for once win-compute-2 has rebooted (holding the slot
      // until it is verified, past any halt).
      cluster.lab.replaceModel('win-compute-2', WindowsHost.fresh({ hostname: 'win-compute-2' }));
      const w2reboots = cluster.lab.host('win-compute-2').reboots;
      await cluster.reconcile(['win-compute-2']);
      await waitUntil('win-compute-2 to reboot', () => cluster.lab.host('win-compute-2').reboots > w2reboots, { timeoutMs: STORY_MS });
      cluster.lab.replaceModel('win-compute-1', WindowsHost.fresh({ hostname: 'win-compute-1' }));
      await cluster.lab.fault('win-compute-1', { neverReturnFromReboot: true });
      await cluster.reconcile(['win-compute-1']);
      const nodes = await cluster.waitFor(
        'win-compute-1 to give up',
        (ns) => ns.some((n) => n.name === 'win-compute-1' && n.state === 'unreachable'),
        // A hang guard, not a bound: a fresh host's phases up to the reboot, under real pwsh, then reboot.timeout (120 s).
        STORY_MS,
      );
      expect(byName(nodes)['win-compute-1']?.lastError?.code).toBe('GC_REBOOT_TIMEOUT');
      expect(byName(nodes)['win-compute-1']?.conditions.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True' });
      await cluster.converged(
        cluster.head(),
        ALL.filter((n) => n !== 'win-compute-1'),
      );
      const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
      await page.goto(`${cluster.url}/`);
      await page.waitForSelector('#nodes tr[data-node="win-compute-1"] .reason');
      expect(await page.locator('#nodes tr[data-node="win-compute-1"] .reason').innerText()).toMatch(
        /GC_REBOOT_TIMEOUT: win-compute-1 did not come back with a new boot id within 120 s/,
      );
      await page.screenshot({ path: join(SCREENSHOTS, 'overview-unreachable.png'), fullPage: true });
      await page.close();

      await cluster.lab.powerOn('win-compute-1');
      await cluster.reconcile(['win-compute-1']);
      await cluster.converged(cluster.head());
    },
    STORY_MS,
  );

  it(
    '9. scale-in: deconfigure cleans a removed node; orphan leaves one alone and lists it',
    async () => {
      const instances = (t: string, name: string) => {
        const lines = t.split('\n');
        const start = lines.findIndex((l) => l.startsWith(`  ${name}:`));
        const end = lines.findIndex((l, i) => i > start && /^ {0,2}\S/.test(l));
        return [...lines.slice(0, start), ...lines.slice(end)].join('\n');
      };
      const w3 = cluster.lab.windows('win-compute-3').state.journal.length;
      const orphaned = await cluster.push('remove win-compute-3 (orphan)', () => {
        cluster.edit('instances.yaml', (t) => instances(t, 'win-compute-3'));
        cluster.git('rm', '-q', 'nodes/win-compute-3.yaml');
      });
      await cluster.waitFor('win-compute-3 orphaned', (ns) => ns.some((n) => n.name === 'win-compute-3' && n.state === 'orphaned'));
      expect((await cluster.revisions())[0]?.sha).toBe(orphaned);
      expect(cluster.lab.windows('win-compute-3').state.journal.length).toBe(w3);
      expect(cluster.lab.windows('win-compute-3').state.services['contrail-vrouter-agent']?.status).toBe('Running');

      await cluster.push('remove compute-l2 and win-compute-2 (deconfigure)', () => {
        cluster.edit('instances.yaml', (t) => instances(instances(t, 'compute-l2'), 'win-compute-2'));
        cluster.git('rm', '-q', 'nodes/win-compute-2.yaml');
        cluster.edit('groundcrew.yaml', (t) => t.replace('removalPolicy: orphan', 'removalPolicy: deconfigure'));
      });
      await cluster.waitFor('both removed', (ns) =>
        ['compute-l2', 'win-compute-2'].every((name) => ns.some((n) => n.name === name && n.state === 'removed')),
      );
      const w2 = cluster.lab.windows('win-compute-2').state;
      expect(Object.values(w2.products).map((p) => p.name)).toEqual([]);
      expect(w2.services['contrail-vrouter-agent']).toBeUndefined();
      const l2 = cluster.lab.linux('compute-l2').state;
      expect(Object.values(l2.containers).filter((c) => c.project === 'vrouter')).toEqual([]);
      const gone = await ssh(
        cluster.lab,
        'compute-l2',
        'ls /etc/contrail/common_vrouter.env /etc/contrail/vrouter/docker-compose.yaml 2>&1 | wc -l; ls /etc/contrail/vrouter 2>/dev/null | wc -l',
      );
      expect(gone.stdout).toBe('2\n0\n');
      expect(
        (await cluster.nodes())
          .filter((n) => n.state === 'verified')
          .map((n) => n.name)
          .sort(),
      ).toEqual(['compute-l1', 'ctrl1', 'win-compute-1']);
    },
    STORY_MS,
  );

  it('the daemon stops cleanly, and no credential reached its logs', async () => {
    expect(await cluster.stopDaemon()).toBe(0);
    for (const secret of ['c0ntrail123', 'Contrail123!', cluster.secret]) expect(cluster.log).not.toContain(secret);
  });
});
