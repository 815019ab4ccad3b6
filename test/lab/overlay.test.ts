// Per-host-subnet overlay on real Linux hosts: kernel routes in each host's network namespace, set over SSH
// by the reconciler; a TCP connection from node A's subnet reaches node B's; a commit adding or removing a
// third node's subnet changes exactly those routes (read back from the hosts' command logs). A Windows
// Kubernetes worker (the simulator behind sshd) takes part in the same overlay.

import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostKeyStore } from '../../src/dataplane/host-keys.js';
import { Limiter } from '../../src/dataplane/limiter.js';
import { SshExecutor } from '../../src/dataplane/ssh-executor.js';
import type { DesiredState } from '../../src/inventory/desired-state.js';
import { parseInventory } from '../../src/inventory/parse-inventory.js';
import { Reconciler } from '../../src/reconciler/reconciler.js';
import { StatusStore } from '../../src/reconciler/status-store.js';
import type { KubeletBinary } from '../../src/roles/input.js';
import type { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { Lab } from './lab.js';

const run = promisify(execFile);
const NAMES = ['oa', 'ob', 'oc', 'od'];
/** A Windows Kubernetes worker (the simulator behind sshd) in the same overlay; od is the control plane. */
const WINDOWS = 'ow';
let lab: Lab;
let reconciler: Reconciler;
let status: StatusStore;
const executors = new Map<string, SshExecutor>();

function inventory(subnets: Record<string, string>): DesiredState {
  const instances = [
    'provider_config:',
    '  bms: { ssh_user: root }',
    `  bms_win: { ansible_user: ${lab.host(WINDOWS).user} }`,
    'contrail_configuration:',
    '  KUBERNETES_BOOTSTRAP_TOKEN: abcdef.0123456789abcdef',
    '  KUBERNETES_CA_DATA: lab-ca',
    'instances:',
    ...NAMES.flatMap((n) => [
      `  ${n}:`,
      '    provider: bms',
      `    ip: ${lab.host(n).address}`,
      `    roles: { ${n === 'od' ? 'k8s_master' : 'k8s_node'}: }`,
    ]),
    `  ${WINDOWS}:`,
    '    provider: bms_win',
    `    ip: ${lab.host(WINDOWS).address}`,
    '    roles: { k8s_node: }',
    '',
  ].join('\n');
  const nodeFiles = Object.entries(subnets).map(([n, cidr]) => ({
    path: `nodes/${n}.yaml`,
    text: `labels: { per_host_subnet: ${cidr} }\n`,
  }));
  const parsed = parseInventory({
    instances: { path: 'instances.yaml', text: instances },
    nodeFiles,
    repoFile: { path: 'groundcrew.yaml', text: 'defaults:\n  versions:\n    kubernetes: v1.29.4\n' },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.state;
}

async function commit(sha: string, subnets: Record<string, string>): Promise<void> {
  const done = reconciler.settled();
  reconciler.apply({ sha, state: inventory(subnets) });
  await done;
  for (const n of status.list()) expect([n.name, n.state, n.lastError?.message]).toEqual([n.name, 'verified', undefined]);
}

/** The kernel's routes that groundcrew owns, in a host's namespace. */
async function kernelRoutes(name: string): Promise<string[]> {
  const { stdout } = await run('ip', ['-n', lab.host(name).netns, '-4', 'route', 'show', 'proto', '157']);
  // An empty bridge may show `linkdown` or not, by kernel: that flag is not what is checked here.
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) =>
      l
        .replace(/ linkdown/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    );
}

/** Commands that changed the overlay (not fact reads), sent to a host after `from`. */
async function overlayChanges(name: string, from: number): Promise<string[]> {
  const log = (await lab.commandLog(name)).slice(from);
  return log.flatMap((c) => c.split('\n')).filter((l) => /^ip (route (replace|del|flush)|addr (add|del)|link (add|set|del))/.test(l));
}

/** Connects from `sourceAddress` (inside one namespace) to `target:port`; the listener answers with its name. */
async function tcp(fromHost: string, sourceAddress: string, target: string, port: number): Promise<string> {
  const script = `const s = require('net').connect({ host: ${JSON.stringify(target)}, port: ${port}, localAddress: ${JSON.stringify(sourceAddress)}, timeout: 3000 }); let d = ''; s.on('data', (b) => d += b); s.on('end', () => { console.log(d); }); s.on('error', (e) => { console.log('error ' + e.code); }); s.on('timeout', () => { console.log('timeout'); s.destroy(); });`;
  const { stdout } = await run('ip', ['netns', 'exec', lab.host(fromHost).netns, process.execPath, '-e', script]);
  return stdout.trim();
}

beforeAll(async () => {
  lab = await Lab.start({
    hosts: [
      ...NAMES.map((name) => ({ name, os: 'linux' as const })),
      { name: WINDOWS, os: 'windows' as const, windows: { containerd: true } },
    ],
    rebootMs: 300,
  });
  const connections = new Limiter(16);
  const hostKeys = new HostKeyStore(null);
  for (const n of [...NAMES, WINDOWS]) {
    const host = lab.host(n);
    executors.set(
      n,
      new SshExecutor({
        target: { os: host.os, host: host.address, username: host.user, privateKeyPath: lab.privateKey },
        hostKeys,
        connections,
      }),
    );
  }
  status = new StatusStore();
  reconciler = new Reconciler({
    status,
    access: (spec) => ({ exec: executors.get(spec.name) as SshExecutor, poll: { initialMs: 50, maxMs: 200 } }),
    limits: { settleMs: 50, rebootTimeoutMs: 120_000, backoffBaseMs: 50, backoffMaxMs: 500 },
    resyncMs: 0,
    roles: { kubeletBinary },
  });
}, 60_000);

/** kubelet.exe as the simulator runs it. */
function kubeletBinary(version: string): KubeletBinary {
  const bytes = Buffer.from(`groundcrew-sim kubelet ${version}`);
  return { sha256: createHash('sha256').update(bytes).digest('hex').toUpperCase(), read: async () => bytes };
}

const windowsHost = () => lab.host(WINDOWS).model as WindowsHost;
const windowsRoutes = () => windowsHost().state.routes.map((r) => `${r.destinationPrefix} ${r.nextHop} ${r.interfaceAlias}`);
const windowsRouteChanges = (from: number) =>
  windowsHost()
    .state.journal.slice(from)
    .filter((e) => /netroute|network|portproxy/.test(e));

afterAll(async () => {
  await reconciler?.stop();
  for (const e of executors.values()) await e.close();
  await lab?.stop();
});

describe('per-host-subnet overlay on lab Linux hosts', () => {
  it('routes each labelled subnet through its node, so A reaches B over TCP', { timeout: 600_000 }, async () => {
    await commit('r1', { oa: '10.42.1.0/24', ob: '10.42.2.0/24', [WINDOWS]: '10.42.7.0/24' });
    const [a, b, w] = [lab.host('oa').address, lab.host('ob').address, lab.host(WINDOWS).address];
    expect(await kernelRoutes('oa')).toEqual([
      `10.42.2.0/24 via ${b} dev eth0`,
      `10.42.7.0/24 via ${w} dev eth0`,
      '169.254.169.250 dev gc-overlay scope link src 10.42.1.1',
      '169.254.169.251 dev gc-overlay scope link src 10.42.1.1',
    ]);
    expect(await kernelRoutes('ob')).toContain(`10.42.1.0/24 via ${a} dev eth0`);
    // Unlabelled nodes get no overlay and no routes.
    expect(await kernelRoutes('oc')).toEqual([]);
    // The Windows worker, over SSH: its transparent network, gateway and routes to both Linux subnets.
    expect(windowsRoutes()).toEqual(
      expect.arrayContaining([
        `10.42.1.0/24 ${a} Ethernet0`,
        `10.42.2.0/24 ${b} Ethernet0`,
        '169.254.169.250/32 10.42.7.1 vEthernet (Ethernet0)',
      ]),
    );
    expect(windowsHost().state.hnsNetworks.find((n) => n.name === 'gc-overlay')?.subnets).toEqual([
      { addressPrefix: '10.42.7.0/24', gatewayAddress: '10.42.7.1' },
    ]);
    expect(windowsHost().state.services.kubelet?.status).toBe('Running');

    // A listener on B's gateway address (in B's subnet), reached from A's gateway address (in A's subnet).
    const listener = spawn('ip', [
      'netns',
      'exec',
      lab.host('ob').netns,
      process.execPath,
      '-e',
      "require('net').createServer((s) => s.end('hello from ob')).listen(9000, '10.42.2.1', () => console.log('ready'))",
    ]);
    try {
      await new Promise((resolve, reject) => {
        listener.stdout.once('data', resolve);
        listener.once('exit', reject);
      });
      expect(await tcp('oa', '10.42.1.1', '10.42.2.1', 9000)).toBe('hello from ob');
      // od has no route to 10.42.2.0/24: the same connection from it fails, so the answer above is the routes' doing.
      expect(await tcp('od', lab.host('od').address, '10.42.2.1', 9000)).toMatch(/^error E(NETUNREACH|HOSTUNREACH)|^timeout/);
    } finally {
      listener.kill();
    }
  });

  it('a commit adding, then removing, a third subnet changes only the routes to it, on the labelled nodes only', {
    timeout: 600_000,
  }, async () => {
    const c = lab.host('oc').address;
    const mark = async () => Object.fromEntries(await Promise.all(NAMES.map(async (n) => [n, (await lab.commandLog(n)).length] as const)));

    let at = await mark();
    let atWindows = windowsHost().state.journal.length;
    await commit('r2', { oa: '10.42.1.0/24', ob: '10.42.2.0/24', [WINDOWS]: '10.42.7.0/24', oc: '10.42.3.0/24' });
    expect(windowsRouteChanges(atWindows)).toEqual([`new-netroute 10.42.3.0/24 ${c} Ethernet0`]);
    const added = `ip route replace '10.42.3.0/24' via '${c}' proto 157`;
    expect(await overlayChanges('oa', at.oa as number)).toEqual([added]);
    expect(await overlayChanges('ob', at.ob as number)).toEqual([added]);
    // od's plan did not change: not a single command reached it.
    expect((await lab.commandLog('od')).length).toBe(at.od);
    expect(await kernelRoutes('oa')).toContain(`10.42.3.0/24 via ${c} dev eth0`);
    expect(await kernelRoutes('oc')).toEqual(expect.arrayContaining([`10.42.1.0/24 via ${lab.host('oa').address} dev eth0`]));

    at = await mark();
    atWindows = windowsHost().state.journal.length;
    await commit('r3', { oa: '10.42.1.0/24', ob: '10.42.2.0/24', [WINDOWS]: '10.42.7.0/24' });
    expect(windowsRouteChanges(atWindows)).toEqual([`remove-netroute 10.42.3.0/24 ${c} Ethernet0`]);
    const removed = `ip route del '10.42.3.0/24' proto 157`;
    expect(await overlayChanges('oa', at.oa as number)).toEqual([removed]);
    expect(await overlayChanges('ob', at.ob as number)).toEqual([removed]);
    expect((await lab.commandLog('od')).length).toBe(at.od);
    expect(await kernelRoutes('oa')).not.toContain(`10.42.3.0/24 via ${c} dev eth0`);
    expect(await kernelRoutes('ob')).toHaveLength(4);
    // oc lost its label: its bridge and its routes are gone as well.
    expect(await kernelRoutes('oc')).toEqual([]);
    expect(await overlayChanges('oc', at.oc as number)).toEqual(['ip route flush proto 157', 'ip link del gc-overlay']);
    const links = await run('ip', ['-n', lab.host('oc').netns, '-o', 'link', 'show']);
    expect(links.stdout).not.toContain('gc-overlay');
  });
});
