// Every node's status through etcd (issue 19) on a real three-member etcd: read in pages (10,000 statuses of
// ~0.7 KiB are past the 4 MiB gRPC answer one read got), then watched: only changes travel; and when the revision
// a watch resumes from was compacted while the member was cut off, every status is read again.

import { connect, createServer, type Server, type Socket } from 'node:net';
import { Etcd3 } from 'etcd3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterKeys } from '../../src/cluster/etcd.js';
import { RejectedValues } from '../../src/cluster/etcd-values.js';
import type { FencedWrites } from '../../src/cluster/fenced-writes.js';
import type { Ownership } from '../../src/cluster/ownership.js';
import { SharedStatus } from '../../src/cluster/shared-status.js';
import { StatusStore } from '../../src/reconciler/status-store.js';
import { waitUntil } from '../support/wait-until.js';
import { etcdSuite } from './etcd-suite.js';

const log = pino({ level: 'silent' });
const rejected = new RejectedValues(log);
const keys = new ClusterKeys('/st/');
const COUNT = 10_000;

/** A status record as an owner writes it, about 0.7 KiB. */
function record(i: number, state = 'converging'): string {
  return JSON.stringify({
    name: `node-${i}`,
    address: `10.0.${i >> 8}.${i & 255}`,
    os: i % 5 === 0 ? 'windows' : 'linux',
    roles: ['vrouter', 'openstack_compute'],
    state,
    phase: 'vrouter',
    phases: ['prepare', 'docker', 'vrouter', 'verify'],
    mode: 'autocorrect',
    desiredRevision: 'a'.repeat(40),
    lastAppliedRevision: state === 'verified' ? 'a'.repeat(40) : undefined,
    desiredVersions: { contrail: '2011.L3', docker: '19.03' },
    observedVersions: { contrail: '2011.L2', docker: '19.03' },
    conditions: [{ type: 'Ready', status: 'False', reason: 'Applying', message: 'x'.repeat(280) }],
    rebootCount: 0,
    drift: false,
    since: new Date(0).toISOString(),
    updatedAt: new Date(0).toISOString(),
  });
}

/** A TCP relay on loopback to one etcd member, which the test can cut (every connection dropped, new ones refused). */
class TcpRelay {
  readonly #sockets = new Set<Socket>();
  #open = true;
  private constructor(
    readonly server: Server,
    readonly url: string,
  ) {}

  static async start(port: number, to: number): Promise<TcpRelay> {
    let proxy: TcpRelay | undefined;
    const server = createServer((client) => proxy?.relay(client, to));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    proxy = new TcpRelay(server, `http://127.0.0.1:${port}`);
    return proxy;
  }

  relay(client: Socket, to: number): void {
    if (!this.#open) {
      client.destroy();
      return;
    }
    const upstream = connect(to, '127.0.0.1');
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.#sockets.add(a);
      a.pipe(b);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        this.#sockets.delete(a);
        b.destroy();
      });
    }
  }

  cut(): void {
    this.#open = false;
    for (const s of this.#sockets) s.destroy();
  }

  restore(): void {
    this.#open = true;
  }

  close(): void {
    this.cut();
    this.server.close();
  }
}

describe('shared status on a real etcd', () => {
  const suite = etcdSuite(23930, 3);
  let writer: Etcd3;
  beforeAll(async () => {
    writer = new Etcd3({ hosts: [suite.etcd.clientUrl('e2'), suite.etcd.clientUrl('e3')] });
    for (let i = 0; i < COUNT; i += 128) {
      const puts = Array.from({ length: Math.min(128, COUNT - i) }, (_, j) => ({
        request_put: { key: Buffer.from(keys.status(`node-${i + j}`)), value: Buffer.from(record(i + j)) },
      }));
      await writer.kv.txn({ compare: [], success: puts });
    }
  }, 120_000);
  afterAll(() => {
    writer?.close();
  });

  function member(endpoints: string[], held = new Set<string>()) {
    const client = new Etcd3({ hosts: endpoints });
    const status = new StatusStore();
    const verified: string[] = [];
    const shared = new SharedStatus({
      client,
      keys,
      status,
      ownership: { holds: (n: string) => held.has(n) } as unknown as Ownership,
      writes: {} as FencedWrites,
      timeoutMs: 5000,
      log,
      rejected,
      known: () => true,
      onVerified: (n) => verified.push(n),
    });
    return { client, status, shared, verified };
  }

  it('10,000 statuses (~7 MB): one read of them all fails at gRPC limit; the paged read gets every one', async () => {
    const m = member(suite.etcd.endpoints);
    try {
      await expect(m.client.getAll().prefix(keys.statuses()).strings()).rejects.toThrow(/max|larger|RESOURCE_EXHAUSTED/i);
      m.shared.start(1000);
      await waitUntil('every status read', () => m.shared.counts.fullReads === 1);
      expect(m.status.list()).toHaveLength(COUNT);
      expect(m.status.get('node-9999')?.address).toBe('10.0.39.15');
      expect(m.shared.counts.pages).toBe(COUNT / 500);
    } finally {
      m.shared.stop();
      m.client.close();
    }
  });

  it('after the read, changes arrive by the watch alone, a deleted status is forgotten', async () => {
    const held = new Set(['node-9']);
    const m = member(suite.etcd.endpoints, held);
    try {
      m.shared.start(1000);
      await waitUntil('every status read', () => m.shared.counts.fullReads === 1);
      // node-9 is this member's: its own write coming back does not touch its store, nor count as elsewhere ...
      await writer.put(keys.status('node-9')).value(record(9, 'verified'));
      await writer.put(keys.status('node-7')).value(record(7, 'verified'));
      await writer.put(keys.status('node-8')).value('not json {');
      await waitUntil('node-7 verified here', () => m.status.get('node-7')?.state === 'verified');
      expect(m.verified).toEqual(['node-7']);
      expect(m.shared.elsewhere('node-7')?.state).toBe('verified');
      expect(m.status.get('node-8')?.state).toBe('converging');
      // (Its own store is the reconciler's to fill: nothing read from etcd went into it.)
      expect(m.status.get('node-9')).toBeUndefined();
      expect(m.shared.elsewhere('node-9')).toBeUndefined();
      // ... and once let go, what it last wrote is what the member shows for it.
      held.clear();
      expect(m.shared.elsewhere('node-9')?.state).toBe('verified');
      await writer.delete().key(keys.status('node-7'));
      await waitUntil('node-7 forgotten', () => m.shared.elsewhere('node-7') === undefined);
      expect(m.shared.counts.fullReads).toBe(1);
      expect(m.shared.counts.events).toBe(4);
      await writer.put(keys.status('node-7')).value(record(7));
      await writer.put(keys.status('node-8')).value(record(8));
      await writer.put(keys.status('node-9')).value(record(9));
    } finally {
      m.shared.stop();
      m.client.close();
    }
  });

  it('cut off while the others write and compact past its revision: the resumed watch is canceled, every status read again', async () => {
    // The member reaches etcd through a proxy of the test's, so the cut is the member's alone and etcd stays whole.
    const proxy = await TcpRelay.start(23936, 23930);
    const m = member([proxy.url]);
    try {
      m.shared.start(500);
      await waitUntil('every status read', () => m.shared.counts.fullReads === 1);
      proxy.cut();
      await writer.put(keys.status('node-3')).value(record(3, 'verified'));
      await writer.put(keys.status('node-4')).value(record(4, 'stalled'));
      const rev = (await writer.get(keys.status('node-4')).exec()).header.revision;
      await suite.etcd.ctl(['compact', rev]);
      proxy.restore();
      // Not from the watch resuming (its revision was gone): from the whole read again, which must have ended.
      await waitUntil('a second whole read', () => m.shared.counts.fullReads === 2, { timeoutMs: 40_000 });
      expect(m.status.get('node-3')?.state).toBe('verified');
      expect(m.status.get('node-4')?.state).toBe('stalled');
      expect(m.verified).toContain('node-3');
      // And the new watch works: a change after the read again arrives.
      await writer.put(keys.status('node-5')).value(record(5, 'verified'));
      await waitUntil('node-5 verified here', () => m.status.get('node-5')?.state === 'verified');
    } finally {
      m.shared.stop();
      m.client.close();
      proxy.close();
    }
  });
});
