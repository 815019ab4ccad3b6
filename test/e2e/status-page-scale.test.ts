/// <reference lib="dom" />
// The status page at scale, in Chromium: 2,001 simulated nodes (the real reconciler on simulated hosts, the
// real server on loopback), ten of them stalled because their hosts' vRouter MSI fails (the sim's
// `failVersions` fault, as the stories break a host). With JavaScript off the first paint already shows
// rows; with it on, the "stalled" count filters to exactly the stalled nodes, the URL carries the filter,
// and the search finds a node by name.

import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, SCREENSHOTS } from '../browser/browser.js';
import { type BigCluster, startBigCluster } from './big-cluster.js';

const NODES = 2000;
let cluster: BigCluster;
let browser: Browser;

// A hang guard, not a bound: 2,001 nodes converge in this process on the TypeScript interpreter, CPU-bound, and
// files run side by side (it took over 180 s once with other work on both cores).
beforeAll(async () => {
  [cluster, browser] = await Promise.all([startBigCluster(NODES, 4), launchBrowser()]);
}, 900_000);
afterAll(async () => {
  await browser?.close();
  await cluster?.stop();
});

const stalledNow = () =>
  cluster.status
    .list()
    .filter((n) => n.state === 'stalled')
    .map((n) => n.name);

describe(`the status page over ${NODES + 1} simulated nodes`, () => {
  it('the first paint has rows with JavaScript disabled: the server rendered them', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${cluster.url}/`);
    expect(await page.locator('#rows tr').count()).toBe(100);
    expect(await page.locator('#shown').getAttribute('data-total')).toBe(String(NODES + 1));
    expect(await page.locator('#summary [data-count="stalled"] b').innerText()).toBe('10');
    // The summary's counts are links: without a script, following one filters on the server.
    await page.locator('#summary [data-count="stalled"]').click();
    expect(new URL(page.url()).searchParams.get('state')).toBe('stalled');
    expect(await page.locator('#rows tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.node))).toEqual(stalledNow());
    await page.screenshot({ path: join(SCREENSHOTS, 'scale-no-script.png') });
    // The search is a plain GET form: Enter submits it to the server, keeping the state filter it was drawn with.
    await page.locator('#q').fill('node-0050');
    await page.locator('#q').press('Enter');
    await page.waitForURL((url) => url.searchParams.get('q') === 'node-0050');
    expect(new URL(page.url()).searchParams.getAll('state')).toEqual(['stalled']);
    expect(await page.locator('#rows tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.node))).toEqual(
      stalledNow().filter((n) => n.includes('node-0050')),
    );
    await context.close();
  }, 60_000);

  it('with JavaScript: the stalled count filters to exactly the stalled nodes, in the URL; search finds a node by name', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.goto(`${cluster.url}/`);
    // A mark on this document: a page load would lose it.
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    await page.waitForFunction(() => document.getElementById('live')?.textContent === 'live');
    expect(await page.locator('#rows tr').count()).toBe(100);
    await page.screenshot({ path: join(SCREENSHOTS, 'scale-overview.png') });

    await page.locator('#summary [data-count="stalled"]').click();
    await page.waitForFunction(() => document.querySelectorAll('#rows tr').length === 10);
    const shown = await page
      .locator('#rows tr')
      .evaluateAll((rows) => rows.map((r) => [(r as HTMLElement).dataset.node, (r as HTMLElement).dataset.state]));
    const stalled = stalledNow();
    expect(stalled).toHaveLength(10);
    expect(shown).toEqual(stalled.map((name) => [name, 'stalled']));
    expect(new URL(page.url()).searchParams.get('state')).toBe('stalled');
    expect(await page.locator('#rows .reason').first().innerText()).toContain('GC_MSI_FAILED');
    await page.screenshot({ path: join(SCREENSHOTS, 'scale-stalled.png') });
    // The URL is the filter: opened afresh, it shows the same rows.
    const again = await browser.newPage();
    await again.goto(page.url());
    expect(await again.locator('#rows tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.node))).toEqual(stalled);
    await again.close();

    await page.locator('#chips a.clear').click();
    await page.waitForFunction(() => document.querySelectorAll('#rows tr').length === 100);
    await page.locator('#q').fill('node-1234');
    await page.waitForFunction(() => document.querySelectorAll('#rows tr').length === 1);
    expect(await page.locator('#rows tr').getAttribute('data-node')).toBe('node-1234');
    expect(new URL(page.url()).searchParams.get('q')).toBe('node-1234');
    await page.screenshot({ path: join(SCREENSHOTS, 'scale-search.png') });
    // All of it in place: no page load after the first.
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('/api/nodes filters and pages with the same query; no parameter is still the full list', async () => {
    const all = (await (await fetch(`${cluster.url}/api/nodes`)).json()) as { name: string }[];
    expect(all).toHaveLength(NODES + 1);
    const stalled = await fetch(`${cluster.url}/api/nodes?state=stalled&os=windows&limit=4`);
    expect(stalled.headers.get('x-total-count')).toBe('10');
    const first = (await stalled.json()) as { name: string }[];
    const next = /<([^>]+)>; rel="next"/.exec(stalled.headers.get('link') ?? '')?.[1];
    const pages = [first.map((n) => n.name)];
    let link = next;
    while (link) {
      const res = await fetch(`${cluster.url}${link}`);
      pages.push(((await res.json()) as { name: string }[]).map((n) => n.name));
      link = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    }
    expect(pages.map((p) => p.length)).toEqual([4, 4, 2]);
    expect(pages.flat()).toEqual(stalledNow());
    const sorted = (await (await fetch(`${cluster.url}/api/nodes?os=linux&sort=-name&limit=2`)).json()) as { name: string }[];
    expect(sorted.map((n) => n.name)).toEqual(['node-1999', 'node-1998']);
    expect((await fetch(`${cluster.url}/api/nodes?sort=colour`)).status).toBe(400);
  });
});
