// Credentials in a source URL (and in the proxy's) never leave the daemon: started as a process against
// `https://user:TOKEN@127.0.0.1:<closed port>/repo.git` through a proxy that is not there either, it stays up,
// says why on /readyz with the URL masked, and nothing it writes or serves holds the secret: stdout, stderr
// (through a restart and a stop), every page, fragment and API answer, the CLI.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';
import { freePort } from '../support/ports.js';
import { waitUntil } from '../support/wait-until.js';

const SECRET = 's3cr3t';
let daemon: DaemonProcess;
let gitPort: number;

async function get(path: string): Promise<string> {
  const response = await fetch(`${daemon.url}${path}`);
  return `${path} ${response.status}\n${await response.text()}`;
}

beforeAll(async () => {
  gitPort = await freePort();
  const proxy = `http://proxy-user:pr0xy-${SECRET}@127.0.0.1:${await freePort()}`;
  daemon = await startDaemonProcess({
    url: `https://deploy:${SECRET}-token@127.0.0.1:${gitPort}/team/repo.git`,
    env: { https_proxy: proxy, HTTPS_PROXY: proxy, ALL_PROXY: proxy },
  });
});

afterAll(async () => {
  await daemon?.stop();
});

describe('a source URL with credentials', () => {
  it('never shows them: not in the log, not in an error, not in /api, not on a page', { timeout: 180_000 }, async () => {
    const seen: string[] = [];
    // A few attempts (the first and a retry), or the daemon's end: the output is checked either way.
    await waitUntil(
      'a second attempt at the clone, or the daemon to end',
      async () => !daemon.running() || /"reason":"cloning main of .* failed: .*\(2 attempts/.test(await get('/readyz')),
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    expect(daemon.output()).not.toContain(SECRET);
    expect(daemon.running()).toBe(true);

    const ready = JSON.parse((await get('/readyz')).split('\n')[1] as string) as { ready: boolean; reason: string };
    expect(ready.ready).toBe(false);
    expect(ready.reason).toContain(`cloning main of https://***@127.0.0.1:${gitPort}/team/repo.git failed: `);
    // Retried (with backoff), not given up on: the retries' lines were in the output checked above too.
    expect(ready.reason).toMatch(/\((?:[2-9]|\d{2,}) attempts since [^)]*; retried with backoff\); no revision of the inventory yet$/);
    for (const path of ['/readyz', '/healthz', '/metrics', '/api/nodes', '/api/revisions', '/', '/revisions']) seen.push(await get(path));
    for (const path of ['/fragments/overview', '/fragments/revisions', '/app.js']) seen.push(await get(path));
    for (const args of [['status'], ['status', '--json'], ['nodes']]) {
      const { stdout, stderr } = await daemon.cli(...args);
      seen.push(`groundcrew ${args.join(' ')}\n${stdout}${stderr}`);
    }
    // A restart and a stop write their own lines.
    await daemon.restart();
    seen.push(await get('/readyz'));
    await daemon.stop();
    seen.push(daemon.output());

    const found = seen.filter((text) => text.includes(SECRET)).map((text) => text.split('\n')[0]);
    expect(found).toEqual([]);
    // The checks above looked at something: the masked URL is where the secret would have been.
    expect(seen.join('\n')).toContain(`https://***@127.0.0.1:${gitPort}/team/repo.git`);
  });
});
