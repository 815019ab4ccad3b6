// Batched fenced writes (issue 19) on a real etcd (one member on a loopback port): the writes of many nodes go in
// few transactions and all land; a transaction stays within etcd's --max-txn-ops and request size; a node this
// member lost fails alone while the others' writes land.

import { Etcd3 } from 'etcd3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterKeys } from '../../src/cluster/etcd.js';
import { EtcdSnapshots } from '../../src/cluster/etcd-snapshots.js';
import { FencedWrites } from '../../src/cluster/fenced-writes.js';
import { etcdSuite } from './etcd-suite.js';

const OWNER = JSON.stringify({ member: 'm1', lease: '7' });
const log = pino({ level: 'silent' });

describe('fenced writes on a real etcd', () => {
  const suite = etcdSuite(23910);
  let client: Etcd3;
  beforeAll(() => {
    client = new Etcd3({ hosts: suite.etcd.endpoints });
  });
  afterAll(() => {
    client?.close();
  });

  /** `count` nodes owned by this member under `prefix`. */
  async function owned(prefix: string, count: number): Promise<{ keys: ClusterKeys; nodes: string[] }> {
    const keys = new ClusterKeys(prefix);
    const nodes = Array.from({ length: count }, (_, i) => `node-${i}`);
    for (const n of nodes) await client.put(keys.owner(n)).value(OWNER);
    return { keys, nodes };
  }

  it('etcd refuses a transaction past --max-txn-ops (128): the limit the batches keep to is real', async () => {
    const keys = new ClusterKeys('/limit/');
    const compare = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        key: Buffer.from(keys.owner(`n${i}`)),
        target: 'Create' as const,
        result: 'Equal' as const,
        create_revision: 0,
      }));
    await expect(client.kv.txn({ compare: compare(128), success: [] })).resolves.toMatchObject({ succeeded: true });
    await expect(client.kv.txn({ compare: compare(129), success: [] })).rejects.toThrow(/too many operations/);
  });

  it('2,000 writes of 1,000 nodes land in a few dozen transactions, none refused by etcd', async () => {
    const { keys, nodes } = await owned('/many/', 1000);
    const writes = new FencedWrites({ client, keys, ownerValue: () => OWNER, holds: () => true, timeoutMs: 5000, log });
    for (const n of nodes) {
      writes.write(n, keys.snapshot(n), JSON.stringify({ n, state: 'x'.repeat(300) }));
      writes.write(n, keys.status(n), JSON.stringify({ n, state: 'verified' }));
    }
    expect((await Promise.all(nodes.map((n) => writes.flush(n)))).every(Boolean)).toBe(true);
    const statuses = await client.getAll().prefix(keys.statuses()).strings();
    expect(Object.keys(statuses)).toHaveLength(1000);
    expect(JSON.parse(statuses[keys.status('node-999')] ?? '{}')).toEqual({ n: 'node-999', state: 'verified' });
    // 128 ops a transaction at most: 2,000 writes need 16 at least.
    expect(writes.sent.writes).toBe(2000);
    expect(writes.sent.transactions).toBeGreaterThanOrEqual(16);
    expect(writes.sent.transactions).toBeLessThanOrEqual(40);
  });

  it('values past etcd request limit together (1.5 MiB) are split by size and all land', async () => {
    const { keys, nodes } = await owned('/big/', 60);
    const writes = new FencedWrites({ client, keys, ownerValue: () => OWNER, holds: () => true, timeoutMs: 5000, log });
    for (const n of nodes) writes.write(n, keys.snapshot(n), 'y'.repeat(100 * 1024));
    expect((await Promise.all(nodes.map((n) => writes.flush(n)))).every(Boolean)).toBe(true);
    const snaps = await client.getAll().prefix(keys.snapshots()).keys();
    expect(snaps).toHaveLength(60);
    expect(writes.sent.transactions).toBeGreaterThanOrEqual(6);
  });

  it('a node lost in a batch: the others land; the lost node is not written, and its flush says not recorded', async () => {
    const { keys, nodes } = await owned('/lost/', 100);
    await client.put(keys.owner('node-42')).value(JSON.stringify({ member: 'm2', lease: '9' }));
    // This member learns the loss only from the failed compare (its ownership pass has not run yet) ...
    let known = false;
    const writes = new FencedWrites({
      client,
      keys,
      ownerValue: (n) => (n === 'node-42' && known ? undefined : OWNER),
      holds: (n) => n !== 'node-42' || !known,
      timeoutMs: 5000,
      log,
    });
    for (const n of nodes) writes.write(n, keys.status(n), `{"node":"${n}"}`);
    const others = nodes.filter((n) => n !== 'node-42');
    expect((await Promise.all(others.map((n) => writes.flush(n)))).every(Boolean)).toBe(true);
    // ... then its pass sees the key is another member's.
    known = true;
    expect(await writes.flush('node-42')).toBe(false);
    const statuses = await client.getAll().prefix(keys.statuses()).keys();
    expect(statuses).toHaveLength(99);
    expect(statuses).not.toContain(keys.status('node-42'));
  });

  it('order per key: the newest of many values for one key is the one etcd keeps', async () => {
    const { keys } = await owned('/order/', 1);
    const writes = new FencedWrites({ client, keys, ownerValue: () => OWNER, holds: () => true, timeoutMs: 5000, log });
    for (let i = 0; i < 200; i++) {
      writes.write('node-0', keys.status('node-0'), `v${i}`);
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(await writes.flush('node-0')).toBe(true);
    expect(await client.get(keys.status('node-0')).string()).toBe('v199');
  });
  it('1,000 nodes taken at once: their snapshots are read in a few transactions, each node gets its own', async () => {
    const { keys, nodes } = await owned('/prime/', 1000);
    for (let i = 0; i < nodes.length; i += 128) {
      const puts = nodes
        .slice(i, i + 128)
        .filter((n) => n !== 'node-7')
        .map((n) => ({
          request_put: { key: Buffer.from(keys.snapshot(n)), value: Buffer.from(JSON.stringify({ node: n, value: 'waitingForBoot' })) },
        }));
      await client.kv.txn({ compare: [], success: puts });
    }
    const writes = new FencedWrites({ client, keys, ownerValue: () => OWNER, holds: () => true, timeoutMs: 5000, log });
    const snapshots = new EtcdSnapshots({ client, keys, writes, timeoutMs: 5000, log });
    await Promise.all(nodes.map((n) => snapshots.prime(n)));
    expect(snapshots.reads.calls).toBe(Math.ceil(1000 / 128));
    expect(snapshots.load('node-999').saved).toEqual({ node: 'node-999', value: 'waitingForBoot' });
    expect(snapshots.load('node-0').saved).toEqual({ node: 'node-0', value: 'waitingForBoot' });
    // A node with no snapshot in etcd starts over.
    expect(snapshots.load('node-7')).toEqual({});
  });
});
