// Without source.verify a rewind is applied but flagged (issue 30, item 2): its revision.accepted notification is
// a warning that names the commit it rewound from, as a receiver gets it (a real HTTP server, the generic webhook
// sink). The flag on /api/revisions, the page and `groundcrew status` is test/integration/signed-rollback.test.ts's.
// The daemon in this process on a real Git remote; the force-push is the remote's branch moved back.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CaptureServer, captureServer } from '../support/capture-server.js';
import { type SimDaemon, startSimDaemon } from '../support/sim-daemon.js';
import { waitUntil } from '../support/wait-until.js';

interface Delivered {
  kind: string;
  severity: string;
  revision?: string;
  summary: string;
  details?: { rewindFrom?: string; rewindAllowed?: boolean };
}

let d: SimDaemon | undefined;
let receiver: CaptureServer | undefined;
const secrets = mkdtempSync(join(tmpdir(), 'gc-rewind-hook-'));
afterAll(async () => {
  await d?.stop();
  await receiver?.close();
  rmSync(secrets, { recursive: true, force: true });
}, 180_000);

describe('a rewind without source.verify', () => {
  it('is applied, and its revision.accepted notification is a warning naming the commit it rewound from', async () => {
    receiver = await captureServer();
    const secret = join(secrets, 'hook-secret');
    writeFileSync(secret, 'a hook secret\n');
    d = await startSimDaemon({
      notifications: {
        pageUrl: 'http://groundcrew.example:7070',
        sinks: [{ name: 'hook', type: 'webhook', url: `${receiver.url}/hook`, secretFile: secret, events: ['revision.accepted'] }],
      },
    });
    const daemon = d.daemon;
    await d.until('the first revision', () => daemon.status.current() !== undefined);
    const first = daemon.status.current()?.sha as string;
    const newer = await d.push('contrail 5.0.2', () => d?.setVersion('win-compute-1', '5.0.2'));
    await d.until('the newer revision', () => daemon.status.current()?.sha === newer);
    // The branch moved back on the server, as a force-push would.
    execFileSync('git', ['-C', join(d.dir, 'origin.git'), 'update-ref', 'refs/heads/main', first]);
    await daemon.source.trigger('test');
    await d.until('the rewind applied', () => daemon.status.current()?.sha === first);
    // Two deliveries about the first commit: when it first came (no rewind, info), and now.
    const about = () => (receiver?.requests ?? []).map((r) => JSON.parse(r.body) as Delivered).filter((e) => e.revision === first);
    await waitUntil('two deliveries about the first commit', () => about().length >= 2, { timeoutMs: 60_000 });
    const [firstTime, rewound] = about();
    expect(firstTime).toMatchObject({ kind: 'revision.accepted', severity: 'info' });
    expect(firstTime?.details?.rewindFrom).toBeUndefined();
    expect(rewound).toMatchObject({
      kind: 'revision.accepted',
      severity: 'warning',
      details: { rewindFrom: newer, rewindAllowed: false },
    });
    expect(rewound?.summary).toContain(`a rewind from ${newer.slice(0, 12)} (not a descendant)`);
  }, 150_000);
});
