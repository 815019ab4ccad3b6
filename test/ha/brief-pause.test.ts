// Cluster mode, issue 19: a member that stalls past TTL/2 but not past its TTL (a loaded machine: a renewal
// late, the event loop held) while its Windows node reboots. The fence closes, then opens again at the next
// renewal: the member finishes the reboot itself, one reboot, no other member involved. (Written to chase the
// HA tests' old flake, a state write dropped while the fence was closed; on the old code this passed too: the
// renewal's `resumed` resyncs the node, and its state is written again. test/unit/cluster/fenced-writes.test.ts
// shows the dropped write itself.)

import { describe, expect, it } from 'vitest';
import type { LabHost } from '../lab/lab.js';
import { waitUntil } from '../support/wait-until.js';
import { callersByHost, sleep } from './ha-cluster.js';
import { haSuite } from './ha-suite.js';

const MEMBERS = ['m1', 'm2', 'm3'];
// Fence at 4.5 s, lease gone at 9 s: a 5.5 s stall closes the fence and leaves the lease alive (the last
// renewal left at most 3 s before the stall).
const TTL_MS = 9000;
const STALL_MS = 5500;
const NODE = 'win-compute-1';

describe('cluster mode: a member stalled past TTL/2, within its TTL', () => {
  const { ha } = haSuite({ members: MEMBERS, etcdPort: 23830, leaseTtl: `${TTL_MS / 1000}s` });

  it('stalled as its Windows node is told to reboot: it finishes the reboot itself, once', { timeout: 240_000 }, async () => {
    await ha.startMembers();
    // The member is stopped the moment its Restart-Computer reaches the host, before the host answers: it wakes
    // to the answer with its fence closed.
    let stalled: string | undefined;
    let resumed: Promise<void> | undefined;
    const log = ha.lab.logCommand.bind(ha.lab);
    ha.lab.logCommand = async (host: LabHost, command: string, caller?: string) => {
      if (!stalled && host.name === NODE && caller && caller !== '-' && /Restart-Computer/.test(command)) {
        stalled = caller;
        ha.members.get(caller)?.proc.kill('SIGSTOP');
        resumed = sleep(STALL_MS).then(() => void ha.members.get(caller)?.proc.kill('SIGCONT'));
      }
      return log(host, command, caller);
    };
    const sha = ha.pushInventory();
    await waitUntil(
      () => `${NODE} told to reboot\n${ha.logTails()}`,
      () => resumed !== undefined,
      { timeoutMs: 90_000 },
    );
    await resumed;
    const resumedAt = Date.now();
    await ha.converged(sha, 90_000);

    const member = ha.members.get(stalled ?? '');
    expect(member?.log).not.toContain('the lease expired at etcd');
    expect(member?.log).not.toContain('GC_REBOOT_TIMEOUT');
    expect(ha.lab.host(NODE).reboots).toBe(1);
    expect((await callersByHost(ha.lab))[NODE]).toEqual([stalled]);
    const back = (await ha.lab.calls(NODE)).find((c) => c.at > resumedAt && c.caller === stalled);
    expect(back, `${stalled} sent ${NODE} nothing after it resumed`).toBeDefined();
    console.log(`brief pause: ${stalled} stalled ${STALL_MS} ms; its first command to ${NODE} ${(back?.at ?? 0) - resumedAt} ms after`);
  });
});
