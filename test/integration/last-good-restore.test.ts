// The last good revision read again at a restart (issue 30, item 6): from the object database, as intake reads
// every revision, not through a work tree. An accepted commit whose .gitattributes re-encodes instances.yaml on
// checkout (working-tree-encoding=UTF-16LE: the checked-out bytes are not the committed ones) is restored exactly
// when the head is bad at start; a restore that cannot be done is said in the log and on /readyz, not kept silent.
// `groundcrew run` as a process, real git.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/wait-until.js';

interface Revision {
  sha: string;
  accepted: boolean;
  subject?: string;
}

describe('the last good revision, read again at a restart', () => {
  let daemon: DaemonProcess;
  const revisions = async () => (await (await fetch(`${daemon.url}/api/revisions`)).json()) as Revision[];
  const revision = (sha: string, accepted: boolean) =>
    waitUntil(`${sha.slice(0, 12)} ${accepted}`, async () => (await revisions()).find((r) => r.sha === sha && r.accepted === accepted), {
      timeoutMs: 60_000,
    });
  const desired = async () =>
    ((await (await fetch(`${daemon.url}/api/nodes/win-compute-1`)).json()) as { desiredVersions: { contrail: string } }).desiredVersions
      .contrail;
  const readyz = async () => {
    const answer = await fetch(`${daemon.url}/readyz`);
    return { status: answer.status, body: (await answer.json()) as { ready: boolean; reason?: string } };
  };
  let good = '';
  let bad = '';

  beforeAll(async () => {
    daemon = await startDaemonProcess({ pollInterval: '200ms' });
    await revision(daemon.git('rev-parse', 'HEAD'), true);
    // instances.yaml's blob stays UTF-8; a checkout of this commit writes it as UTF-16LE. Only the node file is
    // staged, so the test's own work tree never converts instances.yaml.
    writeFileSync(join(daemon.work, '.gitattributes'), 'instances.yaml working-tree-encoding=UTF-16LE\n');
    writeFileSync(join(daemon.work, 'nodes', 'win-compute-1.yaml'), 'versions:\n  contrail: "5.0.2"\n');
    daemon.git('add', '.gitattributes', 'nodes/win-compute-1.yaml');
    daemon.git('commit', '-qm', 'contrail 5.0.2, with a .gitattributes');
    daemon.git('push', '-q', 'origin', 'main');
    good = daemon.git('rev-parse', 'HEAD');
    await revision(good, true);
    writeFileSync(join(daemon.work, 'nodes', 'win-compute-1.yaml'), 'versions: [\n');
    daemon.git('add', 'nodes/win-compute-1.yaml');
    daemon.git('commit', '-qm', 'a broken node file');
    daemon.git('push', '-q', 'origin', 'main');
    bad = daemon.git('rev-parse', 'HEAD');
    await revision(bad, false);
  }, 120_000);
  afterAll(async () => daemon?.stop(), 180_000);

  it('restores an accepted revision with a .gitattributes exactly when the head is bad at start', async () => {
    expect(await desired()).toBe('5.0.2');
    await daemon.restart();
    const restored = await revision(good, true);
    expect(restored.subject).toBe('(read again at start) contrail 5.0.2, with a .gitattributes');
    expect((await revisions()).find((r) => r.sha === bad)?.accepted).toBe(false);
    expect(await desired()).toBe('5.0.2');
    expect(await waitUntil('/readyz 200', async () => ((await readyz()).status === 200 ? true : undefined), { timeoutMs: 60_000 })).toBe(
      true,
    );
  }, 120_000);

  it('says a restore that cannot be done in the log and on /readyz', async () => {
    // The state file names a commit the clone does not have (a state directory restored from another host's backup).
    const missing = 'f'.repeat(40);
    writeFileSync(join(daemon.stateDir, 'last-good-revision'), `${missing}\n`);
    const before = daemon.output().length;
    await daemon.restart();
    await revision(bad, false);
    const why = `the last good revision ${missing.slice(0, 12)} could not be read again: the clone does not have that commit`;
    const ready = await waitUntil(
      '/readyz naming the failed restore',
      async () => {
        const r = await readyz();
        return r.body.reason?.includes('could not be read again') ? r : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(ready.status).toBe(503);
    expect(ready.body.reason).toBe(why);
    expect(daemon.output().slice(before)).toContain(why);
    expect(readFileSync(join(daemon.stateDir, 'last-good-revision'), 'utf8')).toBe(`${missing}\n`);
  }, 120_000);
});
