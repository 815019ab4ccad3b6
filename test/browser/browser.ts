// Debian's chromium, headless, driven by playwright-core: the status page as a person sees it.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox'] });
}
