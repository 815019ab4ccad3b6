// Per-host-subnet overlay and the Windows Kubernetes worker on simulated Windows hosts, through the
// reconciler: what the route table, portproxy rules, transparent network and kubelet service hold after
// converge, after one node's subnet is added or moved, and after a Kubernetes version commit.

import { createHash } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SimShells } from '../../../src/dataplane/sim-executor.js';
import type { DesiredState } from '../../../src/inventory/desired-state.js';
import type { KubeletBinary } from '../../../src/roles/input.js';
import type { LinuxHost } from '../../../src/sim/linux/linux-host.js';
import type { WindowsHost } from '../../../src/sim/windows/windows-host.js';
import { kubernetesInstances } from '../../support/inputs.js';
import { simReconciler } from '../../support/sim-reconciler.js';
import { waitUntil } from '../../support/wait-until.js';
import { parse } from '../inventory/helpers.js';

const INSTANCES = kubernetesInstances(
  'k8s-master',
  ['win-a', 'win-b', 'win-c'],
  ['  KUBERNETES_BOOTSTRAP_TOKEN: abcdef.0123456789abcdef', '  KUBERNETES_CA_DATA: "-----BEGIN CERTIFICATE-----"'],
);

const REPO_FILE = 'defaults:\n  versions:\n    kubernetes: v1.29.4\n';

type Files = Record<string, string>;

function state(nodeFiles: Files, instances = INSTANCES): DesiredState {
  const result = parse(instances, nodeFiles, REPO_FILE);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.state;
}

/** The control host's kubelet.exe files: the simulator runs a file holding `groundcrew-sim kubelet <version>`. */
const kubeletBinary = (version: string): KubeletBinary => {
  if (version === 'v1.27.0') return { missing: `/var/lib/groundcrew/kubernetes/${version}/kubelet.exe does not exist` };
  const bytes = Buffer.from(`groundcrew-sim kubelet ${version}`);
  return { sha256: createHash('sha256').update(bytes).digest('hex').toUpperCase(), read: async () => bytes };
};

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A simulated cluster for the inventory, reconciling; `converged` waits for r1 to settle. */
function cluster(files: Files, instances = INSTANCES) {
  const { status, reconciler, host } = simReconciler(state(files, instances), { shells, rebootMs: 50, roles: { kubeletBinary } });
  cleanups.push(() => reconciler.stop());
  const commit = async (sha: string, next: Files) => {
    const done = reconciler.settled();
    reconciler.apply({ sha, state: state(next, instances) });
    await done;
  };
  return { status, reconciler, host, commit };
}

async function converged(files: Files, instances = INSTANCES) {
  const c = cluster(files, instances);
  await c.commit('r1', files);
  return c;
}

const linuxRoutes = (h: LinuxHost) => h.state.routes.map((r) => `${r.dst} ${r.gateway ?? r.dev}`).sort();
const routes = (h: WindowsHost) => h.state.routes.map((r) => `${r.destinationPrefix} ${r.nextHop} ${r.interfaceAlias}`).sort();
// Windows nodes bind their data adapter (overlay_interface), never the management one that carries their address.
const SUBNET_A =
  'labels: { per_host_subnet: 10.42.1.0/24 }\noverlay_interface: Ethernet1\npublished_ports:\n  - { port: 8080, to: "10.42.1.10:80" }\n';
const SUBNET_B = 'labels: { per_host_subnet: 10.42.2.0/24 }\noverlay_interface: Ethernet1\n';

describe('per-host-subnet overlay on simulated Windows nodes', () => {
  it('converges route tables, gateways, transparent networks and portproxy rules to the plan', async () => {
    const { status, host } = await converged({ 'nodes/win-a.yaml': SUBNET_A, 'nodes/win-b.yaml': SUBNET_B });
    for (const n of status.list()) expect([n.name, n.state, n.lastError?.message]).toEqual([n.name, 'verified', undefined]);
    const a = host('win-a');
    expect(routes(a)).toEqual(
      [
        '10.42.1.0/24 0.0.0.0 vEthernet (Ethernet1)',
        '10.42.2.0/24 192.0.2.32 Ethernet0',
        '127.0.0.0/8 0.0.0.0 Loopback Pseudo-Interface 1',
        '169.254.169.250/32 10.42.1.1 vEthernet (Ethernet1)',
        '169.254.169.251/32 10.42.1.1 vEthernet (Ethernet1)',
        '255.255.255.255/32 0.0.0.0 Ethernet0',
      ].sort(),
    );
    expect(a.state.hnsNetworks.find((n) => n.name === 'gc-overlay')).toMatchObject({
      type: 'Transparent',
      subnets: [{ addressPrefix: '10.42.1.0/24', gatewayAddress: '10.42.1.1' }],
    });
    expect(a.state.ipAddresses).toEqual([{ interfaceAlias: 'vEthernet (Ethernet1)', ipAddress: '10.42.1.1', prefixLength: 24 }]);
    expect(a.state.portProxies).toEqual([{ listenAddress: '0.0.0.0', listenPort: 8080, connectAddress: '10.42.1.10', connectPort: 80 }]);
    expect(a.state.registry['hklm:\\system\\currentcontrolset\\services\\tcpip\\parameters']?.IPEnableRouter).toBe(1);
    expect(a.state.services.remoteaccess).toMatchObject({ status: 'Running', startType: 'Automatic' });
    expect(routes(host('win-b'))).toContain('10.42.1.0/24 192.0.2.31 Ethernet0');
    // win-c has no subnet: no overlay, and nobody routes to it.
    expect(host('win-c').state.hnsNetworks.some((n) => n.name === 'gc-overlay')).toBe(false);
    expect(status.get('win-c')?.phases).not.toContain('overlay');
  }, 60_000);

  it('adding, moving and removing one subnet changes exactly the affected routes on the other nodes', async () => {
    const files = { 'nodes/win-a.yaml': SUBNET_A, 'nodes/win-b.yaml': SUBNET_B };
    const { host, commit, status } = await converged(files);
    // An operator's own route must survive everything below.
    host('win-a').state.routes.push({ destinationPrefix: '198.51.100.0/24', nextHop: '192.0.2.1', interfaceAlias: 'Ethernet0' });
    const mark = (n: string) => host(n).state.journal.length;
    const since = (n: string, at: number) => host(n).state.journal.slice(at);

    let at = { a: mark('win-a'), b: mark('win-b') };
    await commit('add-c', { ...files, 'nodes/win-c.yaml': 'labels: { per_host_subnet: 10.42.3.0/24 }\noverlay_interface: Ethernet1\n' });
    const changes = (n: string, from: number) => since(n, from).filter((e) => /route|network|portproxy|netipaddress/.test(e));
    expect(changes('win-a', at.a)).toEqual(['new-netroute 10.42.3.0/24 192.0.2.33 Ethernet0']);
    expect(changes('win-b', at.b)).toEqual(['new-netroute 10.42.3.0/24 192.0.2.33 Ethernet0']);
    expect(routes(host('win-c'))).toEqual(
      expect.arrayContaining(['10.42.1.0/24 192.0.2.31 Ethernet0', '10.42.2.0/24 192.0.2.32 Ethernet0']),
    );
    expect(status.get('k8s-master')?.desiredRevision).toBe('r1');

    at = { a: mark('win-a'), b: mark('win-b') };
    await commit('move-b', {
      ...files,
      'nodes/win-b.yaml': 'labels: { per_host_subnet: 10.42.4.0/24 }\noverlay_interface: Ethernet1\n',
      'nodes/win-c.yaml': 'labels: { per_host_subnet: 10.42.3.0/24 }\noverlay_interface: Ethernet1\n',
    });
    expect(changes('win-a', at.a)).toEqual([
      'remove-netroute 10.42.2.0/24 192.0.2.32 Ethernet0',
      'new-netroute 10.42.4.0/24 192.0.2.32 Ethernet0',
    ]);
    // win-b's own network is made again with the new subnet, its gateway and service routes with it.
    expect(host('win-b').state.hnsNetworks.find((n) => n.name === 'gc-overlay')?.subnets).toEqual([
      { addressPrefix: '10.42.4.0/24', gatewayAddress: '10.42.4.1' },
    ]);
    expect(routes(host('win-b'))).toEqual(
      expect.arrayContaining(['169.254.169.250/32 10.42.4.1 vEthernet (Ethernet1)', '10.42.3.0/24 192.0.2.33 Ethernet0']),
    );

    at = { a: mark('win-a'), b: mark('win-b') };
    await commit('remove-c', {
      'nodes/win-a.yaml': 'labels: { per_host_subnet: 10.42.1.0/24 }\noverlay_interface: Ethernet1\n',
      'nodes/win-b.yaml': 'labels: { per_host_subnet: 10.42.4.0/24 }\noverlay_interface: Ethernet1\n',
    });
    expect(changes('win-a', at.a)).toEqual(['remove-netroute 10.42.3.0/24 192.0.2.33 Ethernet0', 'portproxy-delete 0.0.0.0:8080']);
    expect(changes('win-b', at.b)).toEqual(['remove-netroute 10.42.3.0/24 192.0.2.33 Ethernet0']);
    expect(routes(host('win-a'))).toContain('198.51.100.0/24 192.0.2.1 Ethernet0');
    expect(host('win-a').state.portProxies).toEqual([]);
    // win-c lost its label: its own network, routes and record go too.
    expect(host('win-c').state.hnsNetworks.some((n) => n.name === 'gc-overlay')).toBe(false);
    expect(routes(host('win-c')).filter((r) => r.startsWith('10.42.'))).toEqual([]);
    expect(host('win-c').fs.isFile('C:\\ProgramData\\groundcrew\\overlay.json')).toBe(false);
  }, 90_000);
});

describe('per-host-subnet overlay on a simulated Linux node beside Windows ones', () => {
  it('routes both ways, and a label removed takes the bridge and routes away', async () => {
    const instances = `${INSTANCES}  lin-a:\n    provider: bms\n    ip: 192.0.2.21\n    roles: { k8s_node: }\n`;
    const files = { 'nodes/win-a.yaml': SUBNET_A, 'nodes/lin-a.yaml': 'labels: { per_host_subnet: 10.42.9.0/24 }\n' };
    const { host, commit, status } = await converged(files, instances);
    expect(status.get('lin-a')?.state).toBe('verified');
    const lin = host('lin-a') as unknown as LinuxHost;
    expect(linuxRoutes(lin)).toEqual(['10.42.1.0/24 192.0.2.31', '169.254.169.250/32 gc-overlay', '169.254.169.251/32 gc-overlay']);
    expect(lin.state.links['gc-overlay']).toEqual({ up: true, addrs: ['10.42.9.1/24'] });
    expect(routes(host('win-a'))).toContain('10.42.9.0/24 192.0.2.21 Ethernet0');
    await commit('unlabel', { 'nodes/win-a.yaml': SUBNET_A });
    expect(linuxRoutes(lin)).toEqual([]);
    expect(lin.state.links['gc-overlay']).toBeUndefined();
    expect(routes(host('win-a'))).not.toContain('10.42.9.0/24 192.0.2.21 Ethernet0');
  }, 60_000);
});

describe('a Windows Kubernetes worker (k8s_node)', () => {
  it('converges containerd, kubelet.exe, its configuration and service; upgrades on a version commit', async () => {
    const { host, commit, status } = await converged({});
    const a = host('win-a');
    expect(status.get('win-a')).toMatchObject({ state: 'verified' });
    expect(a.state.services.kubelet).toMatchObject({ status: 'Running', startType: 'Automatic', dependsOn: ['containerd'] });
    expect(a.state.services.kubelet?.failure).toEqual({ resetSeconds: 86400, actions: 'restart/10000/restart/10000/restart/10000' });
    expect(a.fs.read('C:\\k\\kubelet.exe')).toBe('groundcrew-sim kubelet v1.29.4');
    expect(a.fs.read('C:\\k\\bootstrap-kubeconfig')).toContain('server: https://192.0.2.10:6443');

    const at = a.state.journal.length;
    await commit('k8s-up', { 'nodes/win-a.yaml': 'versions:\n  kubernetes: v1.29.6\n' });
    expect(status.get('win-a')).toMatchObject({ state: 'verified', desiredRevision: 'k8s-up' });
    expect(a.fs.read('C:\\k\\kubelet.exe')).toBe('groundcrew-sim kubelet v1.29.6');
    const steps = a.state.journal.slice(at).filter((e) => /kubelet/.test(e));
    // The new binary is written beside the old one, the service stopped, the file swapped, the service started.
    expect(steps).toEqual([
      'write C:\\k\\kubelet.exe.new',
      'stop-service kubelet',
      'move C:\\k\\kubelet.exe.new C:\\k\\kubelet.exe',
      'start-service kubelet',
    ]);
    expect(status.get('win-b')?.desiredRevision).toBe('r1');
  }, 60_000);

  it('stalls with what is missing when the bootstrap token is not configured, and writes no kubeconfig', async () => {
    const { host, status, reconciler } = cluster({}, INSTANCES.replace('  KUBERNETES_BOOTSTRAP_TOKEN: abcdef.0123456789abcdef\n', ''));
    reconciler.apply({ sha: 'r1', state: state({}, INSTANCES.replace('  KUBERNETES_BOOTSTRAP_TOKEN: abcdef.0123456789abcdef\n', '')) });
    // The first failure halts the revision's rollout (failure budget 1): the other workers wait, unchanged.
    await waitUntil('a worker stalled', () => status.list().some((n) => n.state === 'stalled'));
    expect(status.list().filter((n) => n.state === 'stalled')).toHaveLength(1);
    const stalled = status.list().find((n) => n.state === 'stalled')?.name as string;
    expect(status.get(stalled)).toMatchObject({ state: 'stalled', lastError: { code: 'GC_KUBERNETES_CONFIG' } });
    expect(status.get(stalled)?.lastError?.message).toMatch(/not set: KUBERNETES_BOOTSTRAP_TOKEN \(in the daemon's secrets file\)/);
    for (const w of ['win-a', 'win-b', 'win-c']) {
      expect(host(w).fs.isFile('C:\\k\\bootstrap-kubeconfig')).toBe(false);
      expect(host(w).state.services.kubelet).toBeUndefined();
    }
  }, 60_000);

  it('refuses to replace kubelet.exe under a running service, and says when the binary is not on the control host', async () => {
    const { host, commit, status } = await converged({});
    const a = host('win-a');
    expect(a.writeBytes('C:\\k\\kubelet.exe', Buffer.from('x'))).toMatch(/being used by another process/);
    await commit('missing', { 'nodes/win-a.yaml': 'versions:\n  kubernetes: v1.27.0\n' }).catch(() => undefined);
    await waitUntil('win-a to say the artifact is missing', () => status.get('win-a')?.lastError?.code === 'GC_ARTIFACT_MISSING');
    expect(status.get('win-a')?.lastError?.message).toMatch(/kubelet\.exe v1\.27\.0 is not on the control host/);
    expect(a.fs.read('C:\\k\\kubelet.exe')).toBe('groundcrew-sim kubelet v1.29.4');
    expect(a.state.services.kubelet?.status).toBe('Running');
  }, 60_000);
});
