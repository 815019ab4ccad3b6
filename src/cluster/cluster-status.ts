// What `groundcrew cluster status` shows, read from etcd: the members (with what their leases have left, the
// revision each applies or waits for), the leader and the revision it put in force, which member owns each
// node, and who holds the disruption budget's slots.

import { type Etcd3, type ICallable, LeaseClient } from 'etcd3';
import pino from 'pino';
import { ClusterKeys, type EtcdSettings, etcdClient } from './etcd.js';
import { AppliedSchema, InForceSchema, MemberSchema, OwnerSchema, parseJson, RejectedValues, SlotSchema } from './etcd-values.js';
import { readLeader } from './leader-election.js';
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
    const inForce = await within(etcd.get(keys.inForce()).string(), timeoutMs, 'revision');
    // Read with the shapes the members read them with: a value that is not one is left out, not a crash.
    const members: MemberView[] = [];
    for (const kv of memberKvs.kvs) {
      const record = parseJson(kv.value.toString(), MemberSchema);
      if (!record.ok || kv.lease === '0' || `${keys.members()}${record.value.name}` !== kv.key.toString()) continue;
      const ttl = await within(leases.leaseTimeToLive({ ID: kv.lease }), timeoutMs, 'lease');
      const mine = applied[keys.appliedBy(record.value.name)];
      const on = mine === undefined ? undefined : parseJson(mine, AppliedSchema);
      members.push({
        ...record.value,
        lease: kv.lease,
        ttl: Number(ttl.TTL),
        grantedTtl: Number(ttl.grantedTTL),
        nodes: [],
        ...(on?.ok && on.value.sha ? { applied: on.value.sha } : {}),
        ...(on?.ok && on.value.waiting ? { waiting: on.value.waiting } : {}),
      });
    }
    const unowned: string[] = [];
    for (const [key, value] of Object.entries(owners)) {
      const node = key.slice(keys.owners().length);
      const owner = parseJson(value, OwnerSchema);
      const by = owner.ok ? members.find((m) => m.name === owner.value.member && m.lease === owner.value.lease) : undefined;
      if (by) by.nodes.push(node);
      else unowned.push(node);
    }
    for (const m of members) m.nodes.sort();
    const leader = await readLeader({ client: etcd, keys, rejected: new RejectedValues(pino({ enabled: false })) }, timeoutMs);
    const revision = inForce === null ? undefined : parseJson(inForce, InForceSchema);
    return {
      members,
      ...(leader ? { leader: leader.name } : {}),
      ...(revision?.ok ? { revision: { sha: revision.value.sha, leader: revision.value.leader, at: revision.value.at } } : {}),
      unowned,
      slots: Object.values(slots).map((v) => {
        const slot = parseJson(v, SlotSchema);
        return slot.ok ? slot.value.node : '(unreadable slot)';
      }),
    };
  } finally {
    etcd.close();
  }
}
