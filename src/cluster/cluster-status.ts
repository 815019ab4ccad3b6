// What `groundcrew cluster status` shows, read from etcd: the members (with what their leases have left),
// which member owns each node, and who holds the disruption budget's slots.

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
}

export interface ClusterView {
  members: MemberView[];
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
    const members: MemberView[] = [];
    for (const kv of memberKvs.kvs) {
      const record = JSON.parse(kv.value.toString()) as { name: string; url?: string; since?: string };
      const ttl = await within(leases.leaseTimeToLive({ ID: kv.lease }), timeoutMs, 'lease');
      members.push({ ...record, lease: kv.lease, ttl: Number(ttl.TTL), grantedTtl: Number(ttl.grantedTTL), nodes: [] });
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
    return { members, unowned, slots: Object.values(slots).map((v) => (JSON.parse(v) as { node: string }).node) };
  } finally {
    etcd.close();
  }
}
