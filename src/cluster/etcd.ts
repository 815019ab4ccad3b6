// The etcd client of cluster mode, from the daemon config's `cluster.etcd`, and the key layout under the prefix.

import { readFileSync } from 'node:fs';
import { Etcd3 } from 'etcd3';

export interface EtcdSettings {
  endpoints: string[];
  tls?: { ca: string; cert?: string | undefined; key?: string | undefined } | undefined;
}

/** Every call has a deadline: a member must notice a lost etcd within its lease, not after gRPC's defaults. */
export function etcdClient(settings: EtcdSettings, callTimeoutMs: number): Etcd3 {
  const { tls } = settings;
  return new Etcd3({
    hosts: settings.endpoints,
    dialTimeout: callTimeoutMs,
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + callTimeoutMs }),
    ...(tls
      ? {
          credentials: {
            rootCertificate: readFileSync(tls.ca),
            ...(tls.key ? { privateKey: readFileSync(tls.key) } : {}),
            ...(tls.cert ? { certChain: readFileSync(tls.cert) } : {}),
          },
        }
      : {}),
  });
}

/** The keys of one cluster, all under its prefix. */
export class ClusterKeys {
  constructor(readonly prefix: string) {}
  /** A member's registration, under its lease: `{ name, url, since }`. */
  members = () => `${this.prefix}members/`;
  member = (name: string) => `${this.members()}${name}`;
  /** Who drives a node, under the owner's lease: `{ member, lease }`; created only if absent. */
  owners = () => `${this.prefix}owners/`;
  owner = (node: string) => `${this.owners()}${node}`;
  /** A node machine's saved snapshot: written only by its owner, in a transaction that checks it still is. */
  snapshots = () => `${this.prefix}snapshots/`;
  snapshot = (node: string) => `${this.snapshots()}${node}`;
  /** A node's status as its owner's status page shows it, for every member's page and cross-node gates. */
  statuses = () => `${this.prefix}status/`;
  status = (node: string) => `${this.statuses()}${node}`;
  /** The disruption budget's slots, numbered, under the holder's lease: `{ node, member }`. */
  slots = () => `${this.prefix}budget/`;
  slot = (i: number) => `${this.slots()}${i}`;
  setAside = (node: string, at: number) => `${this.prefix}set-aside/${node}/${at}`;
}
