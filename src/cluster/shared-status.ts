// Node status across members: the owner writes each of its nodes' status to etcd (fenced), and every member
// reads the others' into its own status store, so any member's page and API show the whole cluster and a
// cross-node gate sees a node driven elsewhere.

import type { Etcd3 } from 'etcd3';
import type { Logger } from 'pino';
import type { NodeStatus, StatusStore } from '../reconciler/status-store.js';
import type { ClusterKeys } from './etcd.js';
import type { FencedWrites } from './fenced-writes.js';
import { within } from './membership.js';
import type { Ownership } from './ownership.js';

export interface SharedStatusOptions {
  client: Etcd3;
  keys: ClusterKeys;
  status: StatusStore;
  ownership: Ownership;
  writes: FencedWrites;
  timeoutMs: number;
  log: Logger;
  /** A node driven elsewhere became verified on its desired revision: nodes gated on it may go on. */
  onVerified: (node: string) => void;
}

/** What a gate needs of a node: verified on the revision it is asked to be at. */
export function verifiedOnDesired(status: Pick<NodeStatus, 'state' | 'lastAppliedRevision' | 'desiredRevision'>): boolean {
  return status.state === 'verified' && status.lastAppliedRevision !== undefined && status.lastAppliedRevision === status.desiredRevision;
}

/** NodeStatus's optional fields, unset: what a remote record does not carry is not shown. */
const CLEARED: Partial<NodeStatus> = {
  phase: undefined,
  desiredRevision: undefined,
  lastAttemptedRevision: undefined,
  lastAppliedRevision: undefined,
  lastError: undefined,
  waiting: undefined,
  snapshotSetAside: undefined,
};

export class SharedStatus {
  readonly #remote = new Map<string, NodeStatus>();
  readonly #seen = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #reading = false;

  constructor(private readonly options: SharedStatusOptions) {
    options.status.on('change', (event) => {
      if (event.type !== 'node') return;
      const { node } = event;
      if (options.ownership.holds(node.name)) options.writes.write(node.name, options.keys.status(node.name), JSON.stringify(node));
    });
  }

  start(everyMs: number): void {
    this.#timer = setInterval(() => void this.read(), everyMs);
    this.#timer.unref();
    void this.read();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  /** The status of a node this member does not drive, as its owner last wrote it. */
  elsewhere(node: string): NodeStatus | undefined {
    return this.options.ownership.holds(node) ? undefined : this.#remote.get(node);
  }

  /** Reads every node's status from etcd into the local store (those this member drives excepted). */
  async read(): Promise<void> {
    if (this.#reading) return;
    this.#reading = true;
    const { client, keys, status, ownership, timeoutMs, log } = this.options;
    try {
      const raw = await within(client.getAll().prefix(keys.statuses()).strings(), timeoutMs, 'statuses');
      for (const [key, text] of Object.entries(raw)) {
        const name = key.slice(keys.statuses().length);
        if (this.#seen.get(name) === text) continue;
        this.#seen.set(name, text);
        const record = JSON.parse(text) as NodeStatus;
        const before = this.#remote.get(name);
        this.#remote.set(name, record);
        if (ownership.holds(name)) continue;
        // The record whole: a field its owner cleared is absent from the JSON, and must not linger here.
        status.update(name, { ...CLEARED, ...record });
        if (verifiedOnDesired(record) && !(before && verifiedOnDesired(before))) this.options.onVerified(name);
      }
    } catch (err) {
      log.debug({ err: (err as Error).message }, 'cluster: statuses not read');
    } finally {
      this.#reading = false;
    }
  }
}
