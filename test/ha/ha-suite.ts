// One cluster-mode test file's world, set up and taken down the same way in each: an HaCluster started before
// the file's tests and stopped after them, each within a bound, and (on request) an OwnerTimeline watching who
// holds each node's owner key. Every process either starts (members, etcd, sshd, the etcdctl watch) is gone
// after the file, even when a start fails or times out half way.

import { afterAll, beforeAll } from 'vitest';
import { ETCDCTL } from './etcd-cluster.js';
import { HaCluster, type HaOptions } from './ha-cluster.js';
import { OwnerTimeline } from './owner-timeline.js';

/** The lab's hosts and etcd up, the first commit pushed. */
const START_MS = 90_000;
/** Members killed, the lab's namespaces and etcd gone. */
const STOP_MS = 60_000;

export interface HaSuite {
  /** Started in beforeAll: read its parts (lab, etcd, work) only in hooks and tests. */
  ha: HaCluster;
  /** Watching from the cluster's start when `watchOwners`; reading it otherwise throws. */
  timeline: OwnerTimeline;
}

export function haSuite(options: HaOptions & { watchOwners?: boolean }): HaSuite {
  const { watchOwners = false, ...cluster } = options;
  const ha = new HaCluster(cluster);
  const timeline = new OwnerTimeline();
  beforeAll(async () => {
    await ha.start();
    if (watchOwners) timeline.watch(ETCDCTL, ha.etcd.endpoints, '/gc-test/owners/');
  }, START_MS);
  afterAll(async () => {
    timeline.stop();
    await ha.stop();
  }, STOP_MS);
  return { ha, timeline };
}
