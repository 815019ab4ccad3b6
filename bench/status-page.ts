/// <reference lib="dom" />
// The status page at 10,000 nodes, in Chromium (issue 18, item 6): the daemon's real server over a status
// store filled directly with 10,000 node records (the page is what is timed, not a converge), and Debian's
// Chromium headless through playwright-core. Per round, each in a fresh browser context (no cache): the first
// paint, first contentful paint and DOMContentLoaded of `/`, of a filter (`/?state=stalled`) and of a search
// (`/?q=NAME`), read from the page's own Performance timeline; then, on a live `/`, the filter and the search
// done in place by the page's script (click on the stalled count, Enter in the search box) until the rows show.
// Also GET /api/nodes over the same store.

import { type Browser, chromium, type Page } from 'playwright-core';
import { type NodeStatus, StatusStore } from '../src/reconciler/status-store.js';
import { listenOnLoopback, statusServer } from '../test/support/status-server.js';
import { type Spread, spread } from './stats.js';

export interface PageLoad {
  firstPaintMs: Spread;
  firstContentfulPaintMs: Spread;
  domContentLoadedMs: Spread;
  /** The HTML document's size. */
  bytes: number;
  rows: number;
}

export interface StatusPageResult {
  nodes: number;
  stalled: number;
  rounds: number;
  overview: PageLoad;
  filter: PageLoad;
  search: PageLoad;
  /** From the click on the stalled count to the stalled rows shown, in place (no page load). */
  filterInPlaceMs: Spread;
  /** From Enter in the search box to the one row shown, in place. */
  searchInPlaceMs: Spread;
  apiNodesMs: Spread;
  apiNodesBytes: number;
  chromium: string;
}

const STALLED_EVERY = 1000;

/** 10,000 records as a converged cluster shows them: one node in five Windows, one in a thousand stalled. */
const nodeName = (i: number) => `node-${String(i).padStart(5, '0')}`;

export function fillStatus(status: StatusStore, nodes: number): number {
  const sha = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
  status.recordRevision({ sha, accepted: true, subject: 'the big inventory' });
  let stalled = 0;
  for (let i = 1; i <= nodes; i++) {
    const name = nodeName(i);
    const windows = i % 5 === 0;
    const isStalled = i % STALLED_EVERY === 7;
    if (isStalled) stalled++;
    const record: Partial<NodeStatus> & Pick<NodeStatus, 'name'> = {
      name,
      address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      os: windows ? 'windows' : 'linux',
      roles: windows ? ['vrouter', 'k8s_node'] : ['vrouter'],
      labels: { rack: `r${i % 40}`, subnet: `10.42.${i % 250}.0/24` },
      state: isStalled ? 'stalled' : 'verified',
      phase: isStalled ? 'vrouter' : 'verify',
      phases: windows ? ['prereqs', 'overlay', 'vrouter', 'verify'] : ['prereqs', 'vrouter', 'verify'],
      desiredRevision: sha,
      lastAttemptedRevision: sha,
      ...(isStalled ? {} : { lastAppliedRevision: sha }),
      desiredVersions: { contrail: '5.0.1' },
      observedVersions: isStalled ? { contrail: '5.0.0' } : { contrail: '5.0.1' },
      ...(isStalled ? { lastError: { code: 'GC_MSI_FAILED', message: 'msiexec exited 1603 installing contrail-vrouter 5.0.1' } } : {}),
    };
    status.update(name, record);
  }
  return stalled;
}

/** Paint and DOMContentLoaded of the page just loaded, from its Performance timeline (ms from navigation start). */
async function timings(page: Page): Promise<{ fp: number; fcp: number; dcl: number; bytes: number; rows: number }> {
  // Paint entries are recorded once the frame is presented: wait for both, a moment after load at most.
  await page.waitForFunction(() => performance.getEntriesByType('paint').length >= 2, undefined, { timeout: 10_000 });
  // No named function inside: tsx (esbuild) would wrap it in a helper the page does not have.
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return {
      fp: performance.getEntriesByName('first-paint')[0]?.startTime ?? Number.NaN,
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
      dcl: nav.domContentLoadedEventEnd,
      bytes: nav.encodedBodySize,
      rows: document.querySelectorAll('#rows tr').length,
    };
  });
}

async function load(browser: Browser, url: string) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    return await timings(page);
  } finally {
    await context.close();
  }
}

function pageLoad(samples: Awaited<ReturnType<typeof load>>[]): PageLoad {
  return {
    firstPaintMs: spread(samples.map((s) => s.fp)),
    firstContentfulPaintMs: spread(samples.map((s) => s.fcp)),
    domContentLoadedMs: spread(samples.map((s) => s.dcl)),
    bytes: samples[0]?.bytes ?? 0,
    rows: samples[0]?.rows ?? 0,
  };
}

/** The filter and the search done by the page's script on a live `/`, each timed until its rows are shown. */
async function inPlace(browser: Browser, url: string, stalled: number, searched: string): Promise<{ filter: number; search: number }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => document.getElementById('live')?.textContent === 'live');
    let t = performance.now();
    await page.locator('#summary [data-count="stalled"]').click();
    await page.waitForFunction((n) => document.querySelectorAll('#rows tr[data-state="stalled"]').length === n, stalled);
    const filter = performance.now() - t;
    await page.locator('#chips a.clear').click();
    await page.waitForFunction(() => document.querySelectorAll('#rows tr').length === 100);
    await page.locator('#q').fill(searched);
    t = performance.now();
    await page.locator('#q').press('Enter');
    await page.waitForFunction((name) => {
      const rows = document.querySelectorAll('#rows tr');
      return rows.length === 1 && (rows[0] as HTMLElement).dataset.node === name;
    }, searched);
    const search = performance.now() - t;
    return { filter, search };
  } finally {
    await context.close();
  }
}

export async function runStatusPage(nodes = 10_000, rounds = 7): Promise<StatusPageResult> {
  const status = new StatusStore();
  const stalled = fillStatus(status, nodes);
  const server = statusServer(status);
  const base = await listenOnLoopback(server);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] });
  try {
    const searched = nodeName(Math.min(1234, nodes));
    const urls = { overview: `${base}/`, filter: `${base}/?state=stalled`, search: `${base}/?q=${searched}` };
    // One warm-up of each (the server's first render, Chromium's first process), not counted.
    for (const url of Object.values(urls)) await load(browser, url);
    await inPlace(browser, urls.overview, stalled, searched);
    type Sample = Awaited<ReturnType<typeof load>>;
    const samples: Record<'overview' | 'filter' | 'search', Sample[]> = { overview: [], filter: [], search: [] };
    const filterInPlace: number[] = [];
    const searchInPlace: number[] = [];
    for (let i = 0; i < rounds; i++) {
      samples.overview.push(await load(browser, urls.overview));
      samples.filter.push(await load(browser, urls.filter));
      samples.search.push(await load(browser, urls.search));
      const moved = await inPlace(browser, urls.overview, stalled, searched);
      filterInPlace.push(moved.filter);
      searchInPlace.push(moved.search);
    }
    const check = (what: string, got: number, want: number) => {
      if (got !== want) throw new Error(`status-page: ${what} showed ${got} rows, expected ${want}`);
    };
    check('/', samples.overview[0]?.rows ?? 0, 100);
    check('/?state=stalled', samples.filter[0]?.rows ?? 0, stalled);
    check(`/?q=${searched}`, samples.search[0]?.rows ?? 0, 1);

    const api: number[] = [];
    let apiNodesBytes = 0;
    for (let i = 0; i < 15; i++) {
      const t = performance.now();
      const body = await (await fetch(`${base}/api/nodes`)).arrayBuffer();
      api.push(performance.now() - t);
      apiNodesBytes = body.byteLength;
    }
    return {
      nodes,
      stalled,
      rounds,
      overview: pageLoad(samples.overview),
      filter: pageLoad(samples.filter),
      search: pageLoad(samples.search),
      filterInPlaceMs: spread(filterInPlace),
      searchInPlaceMs: spread(searchInPlace),
      apiNodesMs: spread(api),
      apiNodesBytes,
      chromium: browser.version(),
    };
  } finally {
    await browser.close();
    await server.close();
  }
}
