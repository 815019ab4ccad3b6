// Cluster mode's state traffic to etcd at scale (issue 19), on a real three-member etcd on loopback: N nodes'
// status writes, each node's a fenced write (its owner key must hold this member's value), sent as before
// (one transaction per write, all at once, each with the 3.3 s deadline of a 10 s lease; failures tried again
// after a pause, as fenced-writes.ts did) and as now (FencedWrites: many nodes in one transaction); then the
// statuses read back as before (one range read of the prefix) and as now (SharedStatus: pages at one revision).
//
// `flock /tmp/gc-lab.lock npx tsx bench/state-traffic.ts` (GC_BENCH_NODES, 10,000 by default; GC_BENCH_ROUNDS, 2;
// 0: the reads alone).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Etcd3 } from 'etcd3';
import pino from 'pino';
import { ClusterKeys, etcdClient } from '../src/cluster/etcd.js';
import { RejectedValues } from '../src/cluster/etcd-values.js';
import { FencedWrites } from '../src/cluster/fenced-writes.js';
import { within } from '../src/cluster/membership.js';
import type { Ownership } from '../src/cluster/ownership.js';
import { SharedStatus } from '../src/cluster/shared-status.js';
import { StatusStore } from '../src/reconciler/status-store.js';
import { EtcdCluster } from '../test/ha/etcd-cluster.js';

const N = Number(process.env.GC_BENCH_NODES ?? 10_000);
const ROUNDS = Number(process.env.GC_BENCH_ROUNDS ?? 2);
const TIMEOUT_MS = 3333;
const OWNER = JSON.stringify({ member: 'm1', lease: '7587' });
const log = pino({ level: 'silent' });
const rejected = new RejectedValues(log);
const keys = new ClusterKeys('/bench/');
const nodes = Array.from({ length: N }, (_, i) => `node-${i}`);
const load = () => execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ')[0];

/** A status record of about 0.7 KiB, as an owner writes it. */
function status(i: number, round: number): string {
  return JSON.stringify({
    name: `node-${i}`,
    address: `10.0.${i >> 8}.${i & 255}`,
    os: i % 5 === 0 ? 'windows' : 'linux',
    roles: ['vrouter', 'openstack_compute'],
    state: 'converging',
    phase: 'vrouter',
    phases: ['prepare', 'docker', 'vrouter', 'verify'],
    mode: 'autocorrect',
    desiredRevision: 'a'.repeat(40),
    desiredVersions: { contrail: '2011.L3', docker: '19.03' },
    observedVersions: { contrail: '2011.L2', docker: '19.03' },
    conditions: [{ type: 'Ready', status: 'False', reason: `round ${round}`, message: 'x'.repeat(280) }],
    rebootCount: 0,
    drift: false,
    since: new Date(0).toISOString(),
    updatedAt: new Date(0).toISOString(),
  });
}

/** As before issue 19's batching: every write its own fenced transaction, sent at once, tried again until it lands. */
async function before(client: Etcd3, round: number): Promise<{ ms: number; transactions: number; timedOut: number }> {
  const started = performance.now();
  let transactions = 0;
  let timedOut = 0;
  await Promise.all(
    nodes.map(async (node, i) => {
      for (let attempt = 1; ; attempt++) {
        transactions++;
        const ok = await within(
          client
            .if(keys.owner(node), 'Value', '==', OWNER)
            .then(client.put(keys.status(node)).value(status(i, round)))
            .commit(),
          TIMEOUT_MS,
          'state write',
        ).then(
          (r) => r.succeeded,
          () => false,
        );
        if (ok) return;
        timedOut++;
        await sleep(Math.min(TIMEOUT_MS, 50 * (attempt + 1)));
      }
    }),
  );
  return { ms: performance.now() - started, transactions, timedOut };
}

/** Now: FencedWrites, every node's write queued at once. */
async function after(client: Etcd3, round: number): Promise<{ ms: number; transactions: number }> {
  const writes = new FencedWrites({ client, keys, ownerValue: () => OWNER, holds: () => true, timeoutMs: TIMEOUT_MS, log });
  const started = performance.now();
  for (const [i, node] of nodes.entries()) writes.write(node, keys.status(node), status(i, round));
  const landed = await Promise.all(nodes.map((n) => writes.flush(n)));
  if (!landed.every(Boolean)) throw new Error('a write did not land');
  return { ms: performance.now() - started, transactions: writes.sent.transactions };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-state-'));
  const etcd = new EtcdCluster(join(dir, 'etcd'), Number(process.env.GC_BENCH_STATE_ETCD_PORT ?? 24870));
  await etcd.start();
  // The members' client: deadlines as a 10 s lease gives them (etcd.ts).
  const client = etcdClient({ endpoints: etcd.endpoints }, TIMEOUT_MS);
  try {
    for (let i = 0; i < N; i += 128) {
      const puts = nodes.slice(i, i + 128).map((n) => ({ request_put: { key: Buffer.from(keys.owner(n)), value: Buffer.from(OWNER) } }));
      await client.kv.txn({ compare: [], success: puts });
    }
    console.log(`state-traffic: ${N} nodes' status writes (~0.7 KiB each), a three-member etcd 3.4 on loopback, deadline ${TIMEOUT_MS} ms`);
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternate which goes first: the machine's load moves under both alike.
      const order = round % 2 === 1 ? ['before', 'after'] : ['after', 'before'];
      for (const which of order) {
        const l0 = load();
        if (which === 'before') {
          const r = await before(client, round);
          console.log(
            `state-traffic: round ${round}, one txn per write (before): ${r.ms.toFixed(0)} ms, ${((N * 1000) / r.ms).toFixed(0)} writes/s, ${r.transactions} txns (${r.timedOut} failed or past the deadline, tried again); load ${l0} -> ${load()}`,
          );
        } else {
          const r = await after(client, round + 100);
          console.log(
            `state-traffic: round ${round}, batched (FencedWrites): ${r.ms.toFixed(0)} ms, ${((N * 1000) / r.ms).toFixed(0)} writes/s, ${r.transactions} txns; load ${l0} -> ${load()}`,
          );
        }
        await sleep(1000);
      }
    }
    // GC_BENCH_ROUNDS=0: the reads alone, of statuses written once.
    if (ROUNDS === 0) await after(client, 0);
    // Reads of every status: one range read with gRPC's default answer limit (as before: every member, every second), and paged.
    const plain = new Etcd3({ hosts: etcd.endpoints });
    const t0 = performance.now();
    const one = await plain
      .getAll()
      .prefix(keys.statuses())
      .strings()
      .then(
        (k) => `${Object.keys(k).length} statuses`,
        (err: Error) => `failed: ${err.message.slice(0, 120)}`,
      );
    console.log(`state-traffic: one range read of every status (before): ${(performance.now() - t0).toFixed(0)} ms, ${one}`);
    plain.close();
    const store = new StatusStore();
    const shared = new SharedStatus({
      client,
      keys,
      status: store,
      ownership: { holds: () => false } as unknown as Ownership,
      writes: {} as FencedWrites,
      timeoutMs: TIMEOUT_MS,
      log,
      rejected,
      known: () => true,
      onVerified: () => undefined,
    });
    const t1 = performance.now();
    await shared.read();
    console.log(
      `state-traffic: paged read of every status (SharedStatus, then a watch): ${(performance.now() - t1).toFixed(0)} ms, ${store.list().length} statuses in ${shared.counts.pages} pages`,
    );
    shared.stop();
  } finally {
    client.close();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
