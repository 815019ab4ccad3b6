// What maxUnavailable limits, sampled while a cluster converges: the hosts down for a reboot at once (as the lab
// sees them, every 10 ms) and the disruption slots etcd holds (every 100 ms). Both at most one with
// maxUnavailable: 1, across every member.

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

/** Samples from now until stop(), which resolves once both samplers have ended (called again, the same). */
export function sampleDisruption(ha: HaCluster): { stop(): Promise<Disruption> } {
  const seen: Disruption = { maxDown: 0, maxSlots: 0, overlaps: [] };
  let sampling = true;
  const hosts = async () => {
    for (; sampling; await sleep(10)) {
      const down = ha.lab.hosts.filter((h) => h.rebooting).map((h) => h.name);
      if (down.length > 1) seen.overlaps.push(`${Date.now()}: ${down.join(', ')}`);
      seen.maxDown = Math.max(seen.maxDown, down.length);
    }
  };
  const slots = async () => {
    for (; sampling; await sleep(100)) {
      const out = await ha.etcd.ctl(['get', '--prefix', '--keys-only', '/gc-test/budget/']).catch(() => '');
      seen.maxSlots = Math.max(seen.maxSlots, out.split('\n').filter(Boolean).length);
    }
  };
  const samplers = Promise.all([hosts(), slots()]);
  return {
    stop() {
      sampling = false;
      return samplers.then(() => seen);
    },
  };
}
