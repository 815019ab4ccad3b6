// Nodes' history and run reports through etcd (issue 19 item 4) on a real etcd (one member on a loopback port):
// member B's /api/nodes/:name and node page show the history and run reports of a node member A drives; a
// new owner's history continues the old owner's; a member that lost the node cannot overwrite them; a value
// in etcd that is not a detail record is shown as unreadable, and replaced by the next owner's.

import { Etcd3 } from 'etcd3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterKeys } from '../../src/cluster/etcd.js';
import { RejectedValues } from '../../src/cluster/etcd-values.js';
import { FencedWrites } from '../../src/cluster/fenced-writes.js';
import { decodeDetail } from '../../src/cluster/node-detail.js';
import { SharedDetails } from '../../src/cluster/shared-details.js';
import type { NodeState } from '../../src/node-state.js';
import { type PhaseReport, StatusStore } from '../../src/reconciler/status-store.js';
import { listenOnLoopback, statusServer } from '../support/status-server.js';
import { waitUntil } from '../support/wait-until.js';
import { etcdSuite } from './etcd-suite.js';

const log = pino({ level: 'silent' });
const rejected = new RejectedValues(log);
const keys = new ClusterKeys('/sd/');
const REV = 'd'.repeat(40);
const phase = (name: string): PhaseReport => ({
  phase: name,
  resources: [
    {
      resource: `${name}/service`,
      status: 'changed',
      before: { inDesiredState: false, differingProperties: ['state'] },
      rebootRequested: false,
      durationMs: 7,
    },
  ],
  commands: 2,
  durationMs: 20,
  at: new Date().toISOString(),
});

/** One member as far as details go: its status store, its fenced writes and its shared details. */
class Member {
  readonly status = new StatusStore();
  readonly held = new Set<string>();
  /** The lease this member writes under (its owner keys' value). */
  readonly owner: string;
  /** Set to go on writing as if it still held its nodes (a paused member that has not noticed its loss). */
  stale = false;
  readonly writes: FencedWrites;
  readonly details: SharedDetails;

  constructor(
    client: Etcd3,
    readonly name: string,
    delayMs = 60_000,
  ) {
    this.owner = JSON.stringify({ member: name, lease: `${name}-lease` });
    const holds = (node: string) => this.held.has(node);
    this.writes = new FencedWrites({
      client,
      keys,
      ownerValue: (node) => (holds(node) || this.stale ? this.owner : undefined),
      holds: (node) => holds(node) && !this.stale,
      timeoutMs: 2000,
      log,
    });
    this.details = new SharedDetails({
      client,
      keys,
      status: this.status,
      holds,
      writes: this.writes,
      timeoutMs: 2000,
      log,
      rejected,
      delayMs,
    });
  }

  /** A pass on `node` as the reconciler records it: two transitions, a phase, and (`finish`) the end. */
  pass(node: string, phases: string[], finish?: NodeState): void {
    for (const p of phases) {
      this.status.update(node, { name: node, state: 'converging', phase: p, desiredRevision: REV }, `${this.name} ${p}`);
      this.status.report(node, REV, false, phase(p));
    }
    if (finish) {
      this.status.update(node, { name: node, state: finish, phase: undefined, lastAppliedRevision: REV }, `${this.name} ${finish}`);
      this.status.finishReport(node, finish);
    }
  }
}

describe('node history and run reports through etcd', () => {
  const suite = etcdSuite(23990);
  let client: Etcd3;
  beforeAll(() => {
    client = new Etcd3({ hosts: suite.etcd.endpoints });
  });
  afterAll(() => client?.close());

  const take = async (member: Member, node: string) => {
    await client.put(keys.owner(node)).value(member.owner);
    member.held.add(node);
  };
  const stored = async (node: string) => {
    const text = await client.get(keys.detail(node)).string();
    if (text === null) return null;
    const read = decodeDetail(node, text);
    if ('unreadable' in read) throw new Error(read.unreadable);
    return read.detail;
  };

  it("member B's /api/nodes/:name and node page show the history and run report of a node member A drives", async () => {
    const a = new Member(client, 'm1');
    const b = new Member(client, 'm2');
    await take(a, 'win-1');
    a.pass('win-1', ['prepare', 'vrouter'], 'verified');
    expect(await a.writes.flush('win-1')).toBe(true);
    expect(a.details.counts.written).toBe(1);
    // B knows the node's status (its SharedStatus put it there), not its history.
    b.status.update('win-1', { ...(a.status.get('win-1') as object), name: 'win-1' }, undefined, { remote: true });
    expect(b.status.history('win-1')).toEqual([]);

    const server = statusServer(b.status, { detail: b.details.source });
    const url = await listenOnLoopback(server);
    try {
      const body = await (await fetch(`${url}/api/nodes/win-1`)).json();
      expect(body.history.map((t: { detail: string }) => t.detail)).toEqual(['m1 prepare', 'm1 vrouter', 'm1 verified']);
      expect(body.reports).toHaveLength(1);
      expect(body.reports[0]).toMatchObject({ node: 'win-1', revision: REV, result: 'verified' });
      expect(body.reports[0].phases.map((p: { phase: string }) => p.phase)).toEqual(['prepare', 'vrouter']);
      const html = await (await fetch(`${url}/nodes/win-1`)).text();
      expect(html).toContain('m1 vrouter');
      expect(html).toContain('vrouter/service');
      expect(html).toContain('ended verified');
    } finally {
      await server.close();
    }
  });

  it('transitions without a finished report: coalesced, one write after the delay, not one each', async () => {
    const a = new Member(client, 'm1', 300);
    a.details.start();
    try {
      await take(a, 'lin-1');
      for (let i = 0; i < 10; i++) a.pass('lin-1', [`phase-${i}`]);
      expect(a.details.counts.written).toBe(0);
      await waitUntil("lin-1's detail stored", async () => (await stored('lin-1')) !== null, { intervalMs: 100 });
      expect(await a.writes.flush('lin-1')).toBe(true);
      expect(a.details.counts.written).toBe(1);
      const detail = await stored('lin-1');
      expect(detail?.history).toHaveLength(10);
      // The pass still running is in it, unfinished: a new owner would go on with it.
      expect(detail?.reports.at(-1)?.finishedAt).toBeUndefined();
      expect(detail?.reports.at(-1)?.phases).toHaveLength(10);
    } finally {
      a.details.stop();
    }
  });

  it("takeover: the new owner's records follow the old owner's, and the old owner's late write is refused", async () => {
    const a = new Member(client, 'm1', 200);
    const b = new Member(client, 'm2');
    await take(a, 'win-2');
    a.details.start();
    a.pass('win-2', ['prepare'], 'verified');
    // A is mid-pass (a reboot) when it stops: its running pass reaches etcd after the delay.
    a.pass('win-2', ['vrouter']);
    a.status.update('win-2', { name: 'win-2', state: 'rebooting', phase: 'vrouter' }, 'm1 reboot');
    await waitUntil("m1's reboot stored for win-2", async () => (await stored('win-2'))?.history.at(-1)?.detail === 'm1 reboot', {
      intervalMs: 100,
    });
    a.details.stop();
    expect(await a.writes.flush('win-2')).toBe(true);

    // A's lease expired: B takes the key and loads what A left before driving the node.
    a.held.delete('win-2');
    a.stale = true;
    await take(b, 'win-2');
    await b.details.load('win-2');
    expect(b.status.history('win-2').map((t) => t.detail)).toEqual(['m1 prepare', 'm1 verified', 'm1 vrouter', 'm1 reboot']);
    // B resumes the same pass: its phase joins A's running report, and B finishes it.
    b.pass('win-2', ['verify'], 'verified');
    expect(await b.writes.flush('win-2')).toBe(true);

    // A, paused and not yet aware, records one more finished report: the owner compare refuses it.
    a.held.add('win-2');
    a.pass('win-2', ['late'], 'stalled');
    expect(await a.writes.flush('win-2')).toBe(false);

    const detail = await stored('win-2');
    expect(detail?.history.map((t) => t.detail)).toEqual([
      'm1 prepare',
      'm1 verified',
      'm1 vrouter',
      'm1 reboot',
      'm2 verify',
      'm2 verified',
    ]);
    expect(detail?.reports.map((r) => [r.result, r.phases.map((p) => p.phase)])).toEqual([
      ['verified', ['prepare']],
      ['verified', ['vrouter', 'verify']],
    ]);
    expect(JSON.stringify(detail)).not.toContain('late');
  });

  it("a value that is not a detail record: B's page says unreadable; the next owner starts a new history over it", async () => {
    await client.put(keys.detail('bad')).value('gc-detail/1:not deflate at all');
    const b = new Member(client, 'm2');
    b.status.update('bad', { name: 'bad', state: 'verified' }, undefined, { remote: true });
    const server = statusServer(b.status, { detail: b.details.source });
    const url = await listenOnLoopback(server);
    try {
      const page = await fetch(`${url}/nodes/bad`);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/history unreadable: not JSON/);
      expect((await (await fetch(`${url}/api/nodes/bad`)).json()).detailUnreadable).toMatch(/not JSON/);
    } finally {
      await server.close();
    }
    const c = new Member(client, 'm3');
    await take(c, 'bad');
    await c.details.load('bad');
    c.pass('bad', ['verify'], 'verified');
    expect(await c.writes.flush('bad')).toBe(true);
    expect((await stored('bad'))?.history.map((t) => t.detail)).toEqual(['m3 verify', 'm3 verified']);
  });
});
