// A source.branch the remote does not have at start (issue 30, item 6): the daemon stays up, serving, and says so
// where an operator looks (/readyz, the log) in the config's words, retried with backoff; once the branch is
// pushed it is followed with no restart. Chosen over an exit: a daemon is often deployed before its inventory
// branch is pushed, and an exit would put systemd in a restart loop with no status page to say why (Flux's
// GitRepository says "reference not found" as a condition the same way). A name Git cannot have is a config
// error, one line at start (test/cli/operator-mistakes.test.ts). `groundcrew run` as a process, real git.

import { afterAll, describe, expect, it } from 'vitest';
import { type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/wait-until.js';

describe('a source.branch the remote does not have', () => {
  let daemon: DaemonProcess;
  afterAll(async () => daemon?.stop(), 180_000);

  it('is a condition on /readyz naming source.branch, and the branch is followed once pushed', async () => {
    daemon = await startDaemonProcess({ pollInterval: '200ms', source: ['branch: release'] });
    const readyz = async () => {
      const answer = await fetch(`${daemon.url}/readyz`);
      return { status: answer.status, body: (await answer.json()) as { ready: boolean; reason?: string } };
    };
    const notReady = await waitUntil(
      '/readyz naming the branch',
      async () => {
        const r = await readyz();
        return r.body.reason?.includes('source.branch') ? r : undefined;
      },
      { timeoutMs: 60_000 },
    );
    expect(notReady.status).toBe(503);
    expect(notReady.body.reason).toContain('the remote has no branch release (source.branch)');
    expect(daemon.output()).toContain('the remote has no branch release (source.branch)');
    expect(daemon.running()).toBe(true);
    daemon.git('push', '-q', 'origin', 'main:release');
    const head = daemon.git('rev-parse', 'HEAD');
    // Backoff doubles from the poll interval: the next attempts come within seconds.
    await waitUntil('/readyz 200', async () => ((await readyz()).status === 200 ? true : undefined), { timeoutMs: 90_000 });
    const revisions = (await (await fetch(`${daemon.url}/api/revisions`)).json()) as { sha: string; accepted: boolean }[];
    expect(revisions[0]).toMatchObject({ sha: head, accepted: true });
  }, 150_000);
});
