// What maxUnavailable limits, while a cluster converges: the hosts down for a reboot at once, from the moment
// the lab takes each one down to the moment its sshd is back (every reboot the lab makes, not samples), and the
// disruption slots etcd holds (sampled every 100 ms). Both at most one with maxUnavailable: 1, across members.

import type { HaCluster } from './ha-cluster.js';
import { sleep } from './ha-cluster.js';

export interface Disruption {
  /** Most hosts down at once. */
  maxDown: number;
  /** Most budget slots held at once. */
  maxSlots: number;
  /** When two or more hosts were down together, and which. */
  overlaps: string[];
}

/** Watches from now until stop(), which resolves once the slot sampler has ended (called again, the same). */
export function sampleDisruption(ha: HaCluster): { stop(): Promise<Disruption> } {
  const seen: Disruption = { maxDown: 0, maxSlots: 0, overlaps: [] };
  const lab = ha.lab;
  // Every reboot goes through lab.reboot (Restart-Computer's shutdown, Linux's `reboot`): the host is down
  // from its first line (host.rebooting set) to its end (sshd back). A sample every 10 ms missed overlaps
  // shorter than a sample, or longer ones when the test's own event loop was held.
  const down = new Set<string>();
  const reboot = lab.reboot.bind(lab);
  lab.reboot = async (name: string) => {
    const host = lab.host(name);
    // Already down: the lab's reboot does nothing.
    if (host.rebooting) return reboot(name);
    down.add(name);
    if (down.size > 1) seen.overlaps.push(`${Date.now()}: ${[...down].join(', ')}`);
    seen.maxDown = Math.max(seen.maxDown, down.size);
    try {
      await reboot(name);
    } finally {
      if (!host.rebooting) down.delete(name);
    }
  };
  let sampling = true;
  const slots = async () => {
    for (; sampling; await sleep(100)) {
      const out = await ha.etcd.ctl(['get', '--prefix', '--keys-only', '/gc-test/budget/']).catch(() => '');
      seen.maxSlots = Math.max(seen.maxSlots, out.split('\n').filter(Boolean).length);
    }
  };
  const sampler = slots();
  return {
    stop() {
      sampling = false;
      lab.reboot = reboot;
      return sampler.then(() => seen);
    },
  };
}
