// The status page under its Content-Security-Policy, in Chromium: `groundcrew run` as a process, the page
// loads its script from /app.js, shows every node, follows live events, and the browser reports no
// CSP violation and no console error.

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../browser/browser.js';
import { type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';

let daemon: DaemonProcess;
let browser: Browser;

beforeAll(async () => {
  daemon = await startDaemonProcess();
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
});

describe('the status page under its CSP', () => {
  it('renders the nodes and the node page with no CSP violation', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
    });
    const response = await page.goto(`${daemon.url}/`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForFunction(() => document.querySelectorAll('#nodes tbody tr').length === 6, undefined, { timeout: 30_000 });
    await page.waitForFunction(() => document.getElementById('live')?.textContent === 'live', undefined, { timeout: 10_000 });
    expect(await page.locator('#nodes tbody tr[data-node="win-compute-1"]').count()).toBe(1);
    // Styles from /app.css apply: the summary is a flex row.
    expect(await page.locator('#summary').evaluate((el) => getComputedStyle(el).display)).toBe('flex');
    await page.goto(`${daemon.url}/nodes/win-compute-1`);
    await page.waitForFunction(() => document.getElementById('title')?.textContent?.includes('win-compute-1'), undefined, {
      timeout: 10_000,
    });
    expect(await page.locator('#diagram .state').count()).toBeGreaterThan(5);
    expect(problems).toEqual([]);
  }, 60_000);
});
