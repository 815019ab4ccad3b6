// The Linux overlay's reading of `ip -j` against iproute2's real output (test/fixtures/linux/, captured here
// with iproute2 6.1 in a network namespace: see ORIGIN.md), and the simulator's `ip -j` held to the same keys.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OverlayInput } from '../../../../src/roles/input.js';
import { linuxOverlay, linuxOverlayAbsent } from '../../../../src/roles/linux/overlay.js';
import type { Resource } from '../../../../src/roles/resource.js';
import { LinuxHost } from '../../../../src/sim/linux/linux-host.js';
import { LinuxShell } from '../../../../src/sim/linux/linux-shell.js';

const fixture = (path: string) => readFileSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', path), 'utf8');
const ADDR = fixture('linux/ip-j-addr-gc-overlay.json');
const ROUTES = fixture('linux/ip-j-route-proto-157.json');

/** The overlay the capture was made for: the bridge holds 10.244.1.1/24; two peers; one service address. */
const INPUT: OverlayInput = {
  subnet: '10.244.1.0/24',
  gateway: '10.244.1.1',
  prefixLength: 24,
  routes: [
    { prefix: '10.244.2.0/24', via: '192.0.2.22', kind: 'peer' },
    { prefix: '10.244.3.0/24', via: '192.0.2.23', kind: 'peer' },
    { prefix: '169.254.169.250/32', via: '10.244.1.1', kind: 'service' },
  ],
  ports: [],
};

const facts = (entries: Record<string, { status: number; stdout: string }>) => new Map<string, unknown>(Object.entries(entries));
const [bridge, routes] = linuxOverlay(INPUT).resources as [Resource, Resource];

describe('ip -j, as iproute2 prints it', () => {
  it('the bridge: present, up, its IPv4 address (the link-local IPv6 one is not counted)', () => {
    const r = bridge.test(facts({ 'overlay.bridge': { status: 0, stdout: ADDR } }));
    expect(r.actual).toEqual({ Present: true, Up: true, Addresses: ['10.244.1.1/24'] });
    expect(r.inDesiredState).toBe(true);
    // Another address on the bridge is a difference.
    const other = ADDR.replace('"local":"10.244.1.1"', '"local":"10.244.1.2"');
    expect(bridge.test(facts({ 'overlay.bridge': { status: 0, stdout: other } })).differingProperties).toEqual(['Addresses']);
  });

  it('a missing bridge: iproute2 exits 1 with `Device "gc-overlay" does not exist.`, which is absent, not an error', () => {
    const r = bridge.test(facts({ 'overlay.bridge': { status: 1, stdout: '' } }));
    expect(r.actual).toEqual({ Present: false, Up: false, Addresses: [] });
  });

  it('the routes: a /32 printed bare with scope link is the service route; the peers by their gateways', () => {
    const r = routes.test(facts({ 'overlay.routes': { status: 0, stdout: ROUTES } }));
    expect(r.inDesiredState).toBe(true);
    const stale = ROUTES.replace('"gateway":"192.0.2.23"', '"gateway":"192.0.2.99"');
    expect(routes.test(facts({ 'overlay.routes': { status: 0, stdout: stale } })).differingProperties).toEqual(['Routes']);
    const absent = linuxOverlayAbsent().test(
      facts({ 'overlay.absent.bridge': { status: 1, stdout: '' }, 'overlay.absent.routes': { status: 0, stdout: ROUTES } }),
    );
    expect(absent.differingProperties).toEqual(['Routes']);
  });
});

describe('the simulator prints ip -j with the real keys', () => {
  let shell: LinuxShell;
  beforeAll(async () => {
    shell = await LinuxShell.create();
  });
  const run = (host: LinuxHost, script: string) => {
    const r = shell.run(host, script, '');
    if (r.exitCode !== 0) throw new Error(`${script}: ${r.stderr}`);
    return r.stdout;
  };
  /** Each object's keys, with the type of each value: what a reader of the JSON depends on. */
  const shape = (o: Record<string, unknown>) => Object.entries(o).map(([k, v]) => `${k}:${Array.isArray(v) ? 'array' : typeof v}`);

  it('routes: the same keys in the same order for a route via a gateway and for a device route', () => {
    const host = LinuxHost.fresh('lin1');
    run(host, 'ip link add gc-overlay type bridge\nip addr add 10.244.1.1/24 dev gc-overlay\nip link set gc-overlay up');
    run(host, 'ip route add 10.244.2.0/24 via 192.0.2.22 dev eth0 proto 157\nip route add 169.254.169.250/32 dev gc-overlay proto 157');
    const sim = JSON.parse(run(host, 'ip -j -4 route show proto 157')) as Record<string, unknown>[];
    const real = JSON.parse(ROUTES) as Record<string, unknown>[];
    expect(sim.map(shape)).toEqual([real[0], real[2]].map((o) => shape(o as Record<string, unknown>)));
    expect(routes.test(facts({ 'overlay.routes': { status: 0, stdout: JSON.stringify(sim) } })).actual).toEqual({
      Routes: ['10.244.2.0/24 via 192.0.2.22', '169.254.169.250/32 dev gc-overlay'],
    });
  });

  it('addresses: every key the simulator prints is one iproute2 prints, with the same type', () => {
    const host = LinuxHost.fresh('lin1');
    run(host, 'ip link add gc-overlay type bridge\nip addr add 10.244.1.1/24 dev gc-overlay\nip link set gc-overlay up');
    const [sim] = JSON.parse(run(host, 'ip -j addr show dev gc-overlay')) as Record<string, unknown>[];
    const [real] = JSON.parse(ADDR) as Record<string, unknown>[];
    if (!sim || !real) return expect.fail('no interface in an ip -j addr listing');
    expect(shape(sim).filter((k) => !shape(real).includes(k))).toEqual([]);
    const info = (o: Record<string, unknown>) => (o.addr_info as Record<string, unknown>[])[0] ?? {};
    expect(shape(info(sim)).filter((k) => !shape(info(real)).includes(k))).toEqual([]);
    expect(bridge.test(facts({ 'overlay.bridge': { status: 0, stdout: JSON.stringify([sim]) } })).actual).toEqual(
      bridge.test(facts({ 'overlay.bridge': { status: 0, stdout: ADDR } })).actual,
    );
  });
});
