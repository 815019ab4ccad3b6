// The etcd client of cluster mode, from the daemon config's `cluster.etcd`, and the key layout under the prefix.

import { readFileSync } from 'node:fs';
import { Etcd3, type IOptions } from 'etcd3';
import type { Logger } from 'pino';
import type { RejectedValues } from './etcd-values.js';

export interface EtcdSettings {
  endpoints: string[];
  tls?: { ca: string; cert?: string | undefined; key?: string | undefined } | undefined;
  /** etcd's username/password auth: the password is read from its file, never from the config itself. */
  auth?: { username: string; passwordFile: string } | undefined;
}

/** The password of `auth`, read from its file (one line; its newline is not part of it). */
function password(auth: NonNullable<EtcdSettings['auth']>): string {
  const text = readFileSync(auth.passwordFile, 'utf8').replace(/\r?\n$/, '');
  if (text === '' || text.includes('\n'))
    throw new Error(`${auth.passwordFile}: expected the etcd password of user ${auth.username} on one line`);
  return text;
}

/**
 * What every part of cluster mode is built with (cluster-member.ts makes it once): the client, the key layout,
 * the deadline of one request, the log.
 */
export interface ClusterContext {
  client: Etcd3;
  keys: ClusterKeys;
  timeoutMs: number;
  log: Logger;
  /** Values read from etcd that do not parse: skipped, said once per change, counted (etcd-values.ts). */
  rejected: RejectedValues;
}

/** The largest answer from etcd the client accepts. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** A host policy that only runs the call (etcd3 calls `execute` on it, nothing else). */
const PASS_THROUGH = {
  execute: <T>(fn: (context: { signal: AbortSignal; attempt: number }) => T | Promise<T>) =>
    Promise.resolve().then(() => fn({ signal: new AbortController().signal, attempt: 0 })),
} as unknown as NonNullable<NonNullable<IOptions['faultHandling']>['host']> extends (h: string) => infer P ? P : never;

/**
 * Every call has a deadline: a member must notice a lost etcd within its lease, not after gRPC's defaults.
 * One attempt gets half of `callTimeoutMs`: the client tries another endpoint when one fails (its default
 * retry policy), so a dead etcd member costs an attempt, not the whole call. No circuit breaker per
 * endpoint (etcd3's default opens after three failures in a row for 5 s: on a loaded host, slow answers
 * from live members opened theirs and every call failed for seconds); a dead endpoint fails fast anyway.
 */
export function etcdClient(settings: EtcdSettings, callTimeoutMs: number): Etcd3 {
  const { tls } = settings;
  const attemptMs = Math.max(100, Math.floor(callTimeoutMs / 2));
  return new Etcd3({
    hosts: settings.endpoints,
    dialTimeout: attemptMs,
    // gRPC backs off reconnecting to an endpoint up to 120 s by default: an etcd member that comes back
    // would stay unused for minutes. Reconnect within a second.
    // And an answer may be bigger than grpc-js's default 4 MiB: a watch catching up after a reconnect sends
    // many revisions' events at once (statuses are read in pages, shared-status.ts, but a watch cannot be).
    grpcOptions: {
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      'grpc.max_receive_message_length': MAX_ANSWER_BYTES,
    },
    faultHandling: { host: () => PASS_THROUGH },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + attemptMs }),
    ...(settings.auth ? { auth: { username: settings.auth.username, password: password(settings.auth) } } : {}),
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
  /** A node's transition history and run reports (node-detail.ts), written by its owner, read by the others. */
  details = () => `${this.prefix}detail/`;
  detail = (node: string) => `${this.details()}${node}`;
  /** A node's status as its owner's status page shows it, for every member's page and cross-node gates. */
  statuses = () => `${this.prefix}status/`;
  status = (node: string) => `${this.statuses()}${node}`;
  /** The disruption budget's slots, numbered, under the holder's lease: `{ node, member }`. */
  slots = () => `${this.prefix}budget/`;
  slot = (i: number) => `${this.slots()}${i}`;
  /** The last "fetch now" a member was asked (a webhook): every member fetches when it changes. */
  fetchNow = () => `${this.prefix}fetch-now`;
  /** A node that failed on a revision, by its owner (a fenced write); the failure budget counts them all. */
  failures = () => `${this.prefix}failures/`;
  failure = (revision: string, node: string) => `${this.failures()}${revision}/${node}`;
  /** A node's SSH host key pin, by `host:port`, under no lease: created if absent, replaced only by `hosts trust`. */
  hostKeys = () => `${this.prefix}hostkeys/`;
  hostKey = (endpoint: string) => `${this.hostKeys()}${endpoint}`;
  /** Candidates for leader (etcd's election protocol), each under its member's lease; the oldest leads. */
  candidates = () => `${this.prefix}election/leader/`;
  candidate = (lease: string) => `${this.candidates()}${lease}`;
  /** The revision in force, written by the leader: `{ sha, leader, at }`. Every member applies only that. */
  inForce = () => `${this.prefix}revision`;
  /** What each member applies, or waits for, under its lease: `{ sha, waiting? }` (for `cluster status`). */
  applied = () => `${this.prefix}applied/`;
  appliedBy = (member: string) => `${this.applied()}${member}`;
  setAside = (node: string, at: number) => `${this.prefix}set-aside/${node}/${at}`;
}
