/// <reference lib="dom" />
// A revision's rollout, followed in Chromium: the daemon (cli/daemon.ts in this process) on the simulated
// example cluster, then a bad vRouter version for the three Windows nodes (their hosts' MSI fails on it,
// the sim's `failVersions` fault) under `failureBudget: 1`: the rollout view shows it halted, the failed
// node with its error, the two held; the revisions page says so; the node page's timeline links to it; a
// Gitea commit status (on a loopback server) goes pending, then failure with the halt's reason.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, SCREENSHOTS } from '../browser/browser.js';
import { convergedAt, type SimDaemon, startSimDaemon } from '../support/sim-daemon.js';
import { waitUntil } from '../support/wait-until.js';

const WINDOWS = ['win-compute-1', 'win-compute-2', 'win-compute-3'];
let d: SimDaemon;
let browser: Browser;
let gitea: Server;
const statuses: { path: string; body: { state: string; description: string; target_url: string } }[] = [];
const dir = mkdtempSync(join(tmpdir(), 'gc-rollout-'));

beforeAll(async () => {
  gitea = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      statuses.push({ path: req.url ?? '', body: JSON.parse(body) });
      res.writeHead(201).end('{}');
    });
  });
  await new Promise<void>((resolve) => gitea.listen(0, '127.0.0.1', resolve));
  const address = gitea.address();
  writeFileSync(join(dir, 'gitea-token'), 'gitea-token\n');
  const notifications = {
    sinks: [
      {
        name: 'gitea',
        type: 'gitea',
        url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
        repo: 'ops/inventory',
        tokenFile: join(dir, 'gitea-token'),
      },
    ],
  };
  [d, browser] = await Promise.all([startSimDaemon({ notifications }), launchBrowser()]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await d?.stop();
  await new Promise((resolve) => gitea.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('the rollout view', () => {
  it('shows a bad version halted by the failure budget, with the failed node and the held ones', async () => {
    await d.until('the first revision', () => d.daemon.status.current() !== undefined);
    const first = d.daemon.status.current()?.sha as string;
    await convergedAt(d, first);
    for (const w of WINDOWS) d.windows(w).state.faults.failVersions = ['5.1.0'];
    const bad = await d.push('upgrade the Windows nodes to 5.1.0', () => {
      for (const w of WINDOWS) d.setVersion(w, '5.1.0');
    });
    await d.until('one failure and two held', () => {
      const win = d.daemon.status.list().filter((n) => WINDOWS.includes(n.name) && n.desiredRevision === bad);
      return win.filter((n) => n.state === 'stalled').length === 1 && win.filter((n) => n.waiting?.includes('halted')).length === 2;
    });
    const failed = d.daemon.status.list().find((n) => WINDOWS.includes(n.name) && n.state === 'stalled')?.name as string;
    const held = WINDOWS.filter((w) => w !== failed);

    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(`${d.url}/revisions/${bad}`);
    expect(await page.locator('#halt').innerText()).toContain(
      `rollout of ${bad.slice(0, 12)} halted: ${failed} failed on it (failure budget 1)`,
    );
    const summary = page.locator('#rollout-summary');
    expect(await summary.getAttribute('data-nodes')).toBe('3');
    expect(await summary.getAttribute('data-applied')).toBe('0');
    expect(await summary.getAttribute('data-halted')).toBe('true');
    const failedItems = page.locator('[data-bucket="failed"] li');
    expect(await failedItems.count()).toBe(1);
    expect(await failedItems.innerText()).toContain(failed);
    expect(await failedItems.innerText()).toContain('GC_MSI_FAILED');
    expect((await page.locator('[data-bucket="held"] li a').allInnerTexts()).sort()).toEqual(held);
    expect(await page.locator('#head').innerText()).toContain('upgrade the Windows nodes to 5.1.0');
    // Who made the commit, and when, as Git has them.
    expect(await page.locator('#head').innerText()).toMatch(
      /by Ada Operator <ada@groundcrew\.invalid>, \d{4}-\d\d-\d\dT[\d:]+[+-]\d\d:\d\d/,
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'rollout-halted.png'), fullPage: true });

    await page.goto(`${d.url}/revisions`);
    const row = page.locator(`#revisions tr[data-sha="${bad}"]`);
    expect(await row.innerText()).toMatch(/halted\s+0 of 3 applied, 1 failed/);
    expect(await page.locator(`#revisions tr[data-sha="${first}"]`).innerText()).toMatch(/done\s+3 of 3 applied/);
    await page.screenshot({ path: join(SCREENSHOTS, 'revisions.png'), fullPage: true });

    // (The first revision's rollout counts the nodes still asked for it: the three Windows nodes moved on.)
    // The node page: its timeline's entries link to their revision's page.
    await page.goto(`${d.url}/nodes/${failed}`);
    await page.waitForSelector(`#timeline a[href="/revisions/${bad}"]`);
    await page.locator(`#timeline a[href="/revisions/${bad}"]`).first().click();
    await page.waitForURL(`${d.url}/revisions/${bad}`);
    expect(await page.locator('#halt').count()).toBe(1);

    const api = (await (await fetch(`${d.url}/api/revisions/${bad.slice(0, 12)}`)).json()) as {
      rollout: { halted: boolean; failed: { name: string }[] };
    };
    expect(api.rollout.halted).toBe(true);
    expect(api.rollout.failed.map((f) => f.name)).toEqual([failed]);
    await page.close();

    // The commit status of the bad revision: pending while it rolled, failure once halted, linking its page.
    await waitUntil('two commit statuses of the bad revision', () => statuses.filter((x) => x.path.endsWith(bad)).length >= 2);
    const mine = statuses.filter((x) => x.path === `/api/v1/repos/ops/inventory/statuses/${bad}`).map((x) => x.body);
    expect(mine.map((x) => x.state)).toEqual(['pending', 'failure']);
    expect(mine[1]?.description).toContain(`halted: ${failed} failed on it`);
    expect(mine[1]?.target_url).toBe(`${d.url}/revisions/${bad}`);
  }, 120_000);
});
