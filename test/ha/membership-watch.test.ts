// Issue 19's failover timeline: a dead member's owner keys went when its lease ended, and its peers took them
// 1.7 to 2.4 s later, at their next renewal's read of the members (every TTL/3). A member watches the members'
// keys, so it sees a member come or go when etcd says so. Two Memberships on a real one-member etcd, with a
// 60 s lease: their renewals (every 20 s) fall after everything this test waits for.

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ClusterKeys, etcdClient } from '../../src/cluster/etcd.js';
import { RejectedValues } from '../../src/cluster/etcd-values.js';
import { LeaseRenewer } from '../../src/cluster/lease-renewer.js';
import { Membership } from '../../src/cluster/membership.js';
import { etcdSuite } from './etcd-suite.js';

const TTL_MS = 60_000;

describe('cluster mode: the members as etcd has them, watched', () => {
  const suite = etcdSuite(23970);

  it('a member sees another join and leave when etcd says so, not at its next renewal', { timeout: 40_000 }, async () => {
    const log = pino({ level: 'silent' });
    const rejected = new RejectedValues(log);
    const settings = { endpoints: suite.etcd.endpoints };
    const keys = new ClusterKeys('/gc-members/');
    const member = (name: string) => {
      const client = etcdClient(settings, 3000);
      const renewer = new LeaseRenewer(settings, 3000);
      const membership = new Membership({ client, keys, member: name, ttlMs: TTL_MS, renewer, log, rejected });
      return {
        membership,
        close: () => {
          renewer.close();
          client.close();
        },
      };
    };
    const m1 = member('m1');
    const m2 = member('m2');
    const views: string[][] = [];
    m1.membership.on('members', (members: string[]) => views.push([...members]));
    const seen = (test: (members: readonly string[]) => boolean, what: string) =>
      new Promise<void>((resolve, reject) => {
        if (test(m1.membership.members)) return resolve();
        // Half a renewal period: what the renewal's read would have found only at 20 s.
        const timer = setTimeout(() => reject(new Error(`${what} not seen within 10 s (m1's views: ${JSON.stringify(views)})`)), 10_000);
        m1.membership.on('members', (members: string[]) => {
          if (!test(members)) return;
          clearTimeout(timer);
          resolve();
        });
      });
    try {
      await m1.membership.start();
      expect(m1.membership.members).toEqual(['m1']);
      await m2.membership.start();
      await seen((m) => m.includes('m2'), 'm2 joining');
      // Its lease revoked (a kill leaves it to expire; etcd deletes the key the same way at the end).
      await m2.membership.stop();
      await seen((m) => !m.includes('m2'), 'm2 leaving');
      expect(views).toEqual([['m1'], ['m1', 'm2'], ['m1']]);
      expect(m1.membership.mayIssue()).toBe(true);
    } finally {
      await m1.membership.stop();
      await m2.membership.stop();
      m1.close();
      m2.close();
    }
  });
});
