// What `groundcrew cluster status` shows, read from etcd: the members (with what their leases have left, the
// revision each applies or waits for), the leader and the revision it put in force, which member owns each
// node, and who holds the disruption budget's slots.

import { type Etcd3, type ICallable, LeaseClient } from 'etcd3';
import { ClusterKeys, type EtcdSettings, etcdClient } from './etcd.js';
import { within } from './membership.js';

export interface MemberView {
  name: string;
  url?: string;
  since?: string;
  lease: string;
  /** Seconds its lease has left, and what it was granted. */
  ttl: number;
  grantedTtl: number;
  nodes: string[];
  /** The revision in force this member applied last, and what it waits for if it is not on it. */
  applied?: string;
  waiting?: string;
}

export interface ClusterView {
  members: MemberView[];
  /** The member that follows Git (the oldest candidate key), if one is elected. */
  leader?: string;
  /** The revision in force, as the leader wrote it. */
  revision?: { sha: string; leader: string; at: string };
  /** Nodes whose owner key names no live member (between an owner's expiry and the next one's take). */
  unowned: string[];
  /** Budget slot holders (node names). */
  slots: string[];
}

export async function readClusterView(settings: EtcdSettings, prefix: string, timeoutMs = 5000): Promise<ClusterView> {
  const etcd: Etcd3 = etcdClient(settings, timeoutMs);
  const keys = new ClusterKeys(prefix.endsWith('/') ? prefix : `${prefix}/`);
  try {
    const leases = new LeaseClient((etcd as unknown as { pool: ICallable<unknown> }).pool);
    const memberKvs = await within(etcd.getAll().prefix(keys.members()).exec(), timeoutMs, 'members');
    const owners = await within(etcd.getAll().prefix(keys.owners()).strings(), timeoutMs, 'owners');
    const slots = await within(etcd.getAll().prefix(keys.slots()).strings(), timeoutMs, 'slots');
    const applied = await within(etcd.getAll().prefix(keys.applied()).strings(), timeoutMs, 'applied');
    const first = await within(etcd.getAll().prefix(keys.candidates()).sort('Create', 'Ascend').limit(1).exec(), timeoutMs, 'leader');
    const inForce = await within(etcd.get(keys.inForce()).string(), timeoutMs, 'revision');
    const members: MemberView[] = [];
    for (const kv of memberKvs.kvs) {
      const record = JSON.parse(kv.value.toString()) as { name: string; url?: string; since?: string };
      const ttl = await within(leases.leaseTimeToLive({ ID: kv.lease }), timeoutMs, 'lease');
      const mine = applied[keys.appliedBy(record.name)];
      const on = mine ? (JSON.parse(mine) as { sha?: string; waiting?: string }) : {};
      members.push({
        ...record,
        lease: kv.lease,
        ttl: Number(ttl.TTL),
        grantedTtl: Number(ttl.grantedTTL),
        nodes: [],
        ...(on.sha ? { applied: on.sha } : {}),
        ...(on.waiting ? { waiting: on.waiting } : {}),
      });
    }
    const unowned: string[] = [];
    for (const [key, value] of Object.entries(owners)) {
      const node = key.slice(keys.owners().length);
      const { member } = JSON.parse(value) as { member: string };
      const owner = members.find((m) => m.name === member);
      if (owner) owner.nodes.push(node);
      else unowned.push(node);
    }
    for (const m of members) m.nodes.sort();
    const leader = first.kvs[0]?.value.toString();
    return {
      members,
      ...(leader ? { leader } : {}),
      ...(inForce ? { revision: JSON.parse(inForce) as { sha: string; leader: string; at: string } } : {}),
      unowned,
      slots: Object.values(slots).map((v) => (JSON.parse(v) as { node: string }).node),
    };
  } finally {
    etcd.close();
  }
}
