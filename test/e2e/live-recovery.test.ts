/// <reference lib="dom" />
// The status page in Chromium recovers what its live stream missed (the server replays nothing): a stream
// dropped by the server reconnects and the page re-reads its rows, showing a change made while it was away;
// a page turned away at the cap on streams (503) opens another later and catches up the same way.

import type { ClientRequest } from 'node:http';
import { request } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StatusStore } from '../../src/reconciler/status-store.js';
import { launchBrowser } from '../browser/browser.js';
import { listenOnLoopback, statusServer } from '../support/status-server.js';
import { waitUntil } from '../support/wait-until.js';

let browser: Browser;
let server: FastifyInstance | undefined;
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(() => browser?.close());
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(maxClients: number): Promise<{ status: StatusStore; url: string }> {
  const status = new StatusStore();
  for (const name of ['n1', 'n2']) status.update(name, { name, state: 'verified' });
  server = statusServer(status, { eventStreams: { maxClients } });
  return { status, url: await listenOnLoopback(server) };
}

const openStreams = async (url: string) =>
  Number(/^groundcrew_event_streams (\d+)$/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1]);
const stateOf = (page: Page, node: string) => page.locator(`#nodes tbody tr[data-node="${node}"]`).getAttribute('data-state');
const isLive = (page: Page) =>
  page.waitForFunction(() => document.getElementById('live')?.textContent === 'live', undefined, { timeout: 30_000 });

describe('the page after its live stream was away', () => {
  it('a stream the server dropped: the page reconnects and shows the change it missed', async () => {
    const { status, url } = await start(16);
    const page = await browser.newPage();
    await page.goto(`${url}/`);
    await isLive(page);
    expect(await stateOf(page, 'n1')).toBe('verified');
    // Every connection cut, as a stream dropped for falling behind is; the change comes while none is open.
    server?.server.closeAllConnections();
    await waitUntil('no stream open', async () => (await openStreams(url)) === 0, { timeoutMs: 30_000 });
    status.update('n1', { name: 'n1', state: 'stalled', lastError: { code: 'GC_MSI_FAILED', message: 'msiexec 1603' } });
    await waitUntil('the page shows n1 stalled', async () => (await stateOf(page, 'n1')) === 'stalled', { timeoutMs: 30_000 });
    await isLive(page);
    await page.close();
  }, 60_000);

  it('a page turned away at the cap (503) opens another stream later and catches up', async () => {
    const { status, url } = await start(1);
    // The only place, taken by another client.
    const holder: ClientRequest = request(`${url}/api/events`);
    const held = new Promise<number>((resolve) => holder.on('response', (res) => resolve(res.statusCode ?? 0)));
    holder.end();
    expect(await held).toBe(200);
    const page = await browser.newPage();
    await page.goto(`${url}/`);
    await page.waitForFunction(() => document.getElementById('live')?.textContent === 'reconnecting…', undefined, { timeout: 30_000 });
    status.update('n2', { name: 'n2', state: 'unreachable' });
    holder.destroy();
    await waitUntil('the page shows n2 unreachable', async () => (await stateOf(page, 'n2')) === 'unreachable', { timeoutMs: 30_000 });
    await isLive(page);
    await page.close();
  }, 60_000);
});
