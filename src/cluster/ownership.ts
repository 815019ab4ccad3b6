// Which nodes this member drives. Each node goes to a live member by rendezvous hashing; a member drives a
// node only while it holds the node's owner key, created under its lease in a create-if-absent transaction.
// A node moves when its owner lets go (the reconciler stops it at a settled state and deletes the key) or
// when the owner's lease expires: the key cannot be taken while it exists, so no two members drive a node.

import type { Etcd3 } from 'etcd3';
import type { Logger } from 'pino';
import type { NodeScope } from '../reconciler/node-scope.js';
import type { ClusterKeys } from './etcd.js';
import { type Membership, within } from './membership.js';
import { ownerOf } from './rendezvous.js';

export interface OwnerRecord {
  member: string;
  lease: string;
}

export interface OwnershipOptions {
  client: Etcd3;
  keys: ClusterKeys;
  membership: Membership;
  log: Logger;
  /** Runs once a node's key is taken, before the reconciler drives it (loads its snapshot from etcd). */
  prepare?: (node: string) => Promise<void>;
  /** The set of nodes this member drives, or should hand over, changed. */
  onChange: () => void;
}

export class Ownership implements NodeScope {
  #nodes: string[] = [];
  /** Nodes whose owner key this member created under its current lease and still holds. */
  readonly #held = new Set<string>();
  /** Held and prepared: the reconciler may drive them. */
  readonly #ready = new Set<string>();
  #owners = new Map<string, OwnerRecord>();
  #running: Promise<void> | undefined;
  #again = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: OwnershipOptions) {
    const { membership } = options;
    membership.on('lost', () => this.#dropAll());
    membership.on('joined', () => this.kick());
    membership.on('members', () => this.kick());
  }

  /** Looks again every `everyMs` besides on every change (a missed change is found there). */
  start(everyMs: number): void {
    this.#timer = setInterval(() => this.kick(), everyMs);
    this.#timer.unref();
    this.kick();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  /** The nodes of the revision in force. */
  setNodes(nodes: string[]): void {
    this.#nodes = [...nodes];
    this.kick();
  }

  get owners(): ReadonlyMap<string, OwnerRecord> {
    return this.#owners;
  }

  /** The owner key's value while this member owns `node` and may write (not fenced); else undefined. */
  ownerValue(node: string): string | undefined {
    const { membership } = this.options;
    const lease = membership.leaseId;
    if (!lease || !this.#held.has(node) || !membership.mayIssue()) return undefined;
    return JSON.stringify({ member: membership.name, lease } satisfies OwnerRecord);
  }

  holds(node: string): boolean {
    return this.#held.has(node);
  }

  drives(node: string): 'yes' | 'hand-over' | 'no' {
    if (!this.#ready.has(node)) return 'no';
    return this.#target(node) === this.options.membership.name ? 'yes' : 'hand-over';
  }

  letGo(node: string): void {
    const lease = this.options.membership.leaseId;
    if (!this.#held.delete(node)) return;
    this.#ready.delete(node);
    this.options.log.info({ node }, 'cluster: node handed over');
    if (!lease) return;
    const { client, keys } = this.options;
    const mine = JSON.stringify({ member: this.options.membership.name, lease } satisfies OwnerRecord);
    void client
      .if(keys.owner(node), 'Value', '==', mine)
      .then(client.delete().key(keys.owner(node)))
      .commit()
      .then(() => this.kick())
      .catch((err: Error) => this.options.log.warn({ node, err: err.message }, 'cluster: could not delete the owner key'));
  }

  /** Runs a pass now, or right after the one running. */
  kick(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#pass()
      .catch((err: Error) => this.options.log.warn({ err: err.message }, 'cluster: ownership pass failed'))
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.kick();
        }
      });
  }

  #target(node: string): string | undefined {
    return ownerOf(node, this.options.membership.members);
  }

  #dropAll(): void {
    if (this.#held.size === 0) return;
    this.#held.clear();
    this.#ready.clear();
    this.options.onChange();
  }

  async #pass(): Promise<void> {
    const { client, keys, membership, log } = this.options;
    const lease = membership.leaseId;
    const me = membership.name;
    if (!lease) return this.#dropAll();
    const ttlMs = membership.options.ttlMs;
    // The members as etcd has them now, not as the last renewal read them (up to TTL/3 old): a member that
    // took nodes on a stale view would take nodes hashed to a member that had already joined.
    await membership.readMembers();
    const raw = await within(client.getAll().prefix(keys.owners()).strings(), ttlMs / 3, 'owners');
    const owners = new Map<string, OwnerRecord>();
    for (const [key, value] of Object.entries(raw)) owners.set(key.slice(keys.owners().length), JSON.parse(value) as OwnerRecord);
    this.#owners = owners;
    let changed = false;
    // A key this member held that is gone or under another lease: lost (its lease expired meanwhile).
    for (const node of [...this.#held]) {
      const owner = owners.get(node);
      if (owner?.member === me && owner.lease === lease) continue;
      this.#held.delete(node);
      this.#ready.delete(node);
      changed = true;
      log.warn({ node }, 'cluster: owner key lost');
    }
    // Take what hashing gives this member, only where nobody holds it; never while fenced.
    if (!membership.mayIssue() || !membership.members.includes(me)) {
      if (changed) this.options.onChange();
      return;
    }
    const mine = JSON.stringify({ member: me, lease } satisfies OwnerRecord);
    for (const node of this.#nodes) {
      const owner = owners.get(node);
      // Taken by this lease in a pass whose preparation failed (etcd slow): prepared again, not left undriven.
      const ours = owner?.member === me && owner.lease === lease;
      if (this.#held.has(node) || (owner && !ours)) continue;
      if (this.#target(node) !== me) {
        // Taken, never prepared, and hashed elsewhere now: given back rather than held undriven.
        if (ours)
          await within(
            client
              .if(keys.owner(node), 'Value', '==', mine)
              .then(client.delete().key(keys.owner(node)))
              .commit(),
            ttlMs / 3,
            'give a node back',
          );
        continue;
      }
      if (!ours) {
        const taken = await within(
          client
            .if(keys.owner(node), 'Create', '==', 0)
            .then(client.put(keys.owner(node)).value(mine).lease(lease))
            .commit(),
          ttlMs / 3,
          'take a node',
        );
        if (!taken.succeeded) continue;
        owners.set(node, { member: me, lease });
      }
      await this.options.prepare?.(node);
      this.#held.add(node);
      this.#ready.add(node);
      changed = true;
      log.info({ node }, 'cluster: node taken');
    }
    // Held but hashed elsewhere now: the reconciler hands it over once it settles.
    for (const node of this.#held) if (this.#target(node) !== me) changed = true;
    if (changed) this.options.onChange();
  }
}
