// The daemon driving Windows Kubernetes workers with a per-host-subnet overlay from a real Git remote:
// the bootstrap token comes from the daemon's secrets file (never the repo, never an API answer),
// kubelet.exe from its binaries directory; a version commit upgrades a worker, a kubelet newer than the
// control plane is refused whole with file:line:col, and a subnet commit reroutes the other worker.

import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '../../src/cli/daemon.js';
import { DaemonConfigSchema } from '../../src/cli/daemon-config.js';
import type { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { gitIn } from '../support/git.js';
import { kubernetesInstances } from '../support/inputs.js';
import { waitUntil } from '../support/wait-until.js';

const HOOK_SECRET = 'hook-secret-for-k8s-tests';
const BOOTSTRAP_TOKEN = 'abcdef.k8s0secret0token0';

let dir: string;
let work: string;
let daemon: Daemon;

const INSTANCES = kubernetesInstances('master', ['win-a', 'win-b']);

const git = (...args: string[]) => gitIn(work)(...args);
const write = (file: string, text: string) => writeFileSync(join(work, file), text);
const host = (node: string) => daemon.sim?.executors.get(node)?.host as WindowsHost;

/** Commits, pushes, and sends the signed generic webhook; resolves once the daemon has taken the revision in. */
async function push(message: string): Promise<string> {
  git('commit', '-qam', message);
  git('push', '-q', 'origin', 'main');
  const sha = git('rev-parse', 'HEAD');
  const body = JSON.stringify({ ref: 'refs/heads/main', after: sha });
  const signature = `sha256=${createHmac('sha256', HOOK_SECRET).update(body).digest('hex')}`;
  const res = await fetch(`${daemon.url}/hooks/generic`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-signature': signature },
  });
  expect(res.status).toBe(202);
  await waitUntil(`revision ${sha}`, () => daemon.status.revisions().some((r) => r.sha === sha));
  return sha;
}

const allVerified = () => daemon.status.list().every((n) => n.state === 'verified');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gc-k8s-'));
  const origin = join(dir, 'origin.git');
  work = join(dir, 'work');
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', origin]);
  mkdirSync(join(work, 'nodes'), { recursive: true });
  execFileSync('git', ['init', '-q', '--initial-branch=main'], { cwd: work });
  git('remote', 'add', 'origin', origin);
  write('instances.yaml', INSTANCES);
  write('groundcrew.yaml', 'defaults:\n  versions:\n    kubernetes: v1.29.4\n');
  write('nodes/win-a.yaml', 'labels: { per_host_subnet: 10.42.1.0/24 }\noverlay_interface: Ethernet1\n');
  write('nodes/win-b.yaml', 'labels: { per_host_subnet: 10.42.2.0/24 }\noverlay_interface: Ethernet1\n');
  git('add', '.');
  git('commit', '-qm', 'two Windows workers');
  git('push', '-q', 'origin', 'main');

  // The control host's side: kubelet.exe per version (the simulator's kind) and the secrets file.
  for (const v of ['v1.29.4', 'v1.29.6']) {
    mkdirSync(join(dir, 'kubernetes', v), { recursive: true });
    writeFileSync(join(dir, 'kubernetes', v, 'kubelet.exe'), `groundcrew-sim kubelet ${v}`);
  }
  writeFileSync(join(dir, 'secrets.yaml'), `KUBERNETES_BOOTSTRAP_TOKEN: ${BOOTSTRAP_TOKEN}\nKUBERNETES_CA_DATA: test-ca\n`);
  writeFileSync(join(dir, 'hook'), HOOK_SECRET);
  const config = DaemonConfigSchema.parse({
    source: { url: origin, branch: 'main', pollInterval: '1h' },
    stateDir: join(dir, 'state'),
    listen: '127.0.0.1:0',
    webhooks: { generic: { secretFile: join(dir, 'hook') } },
    secretsFile: join(dir, 'secrets.yaml'),
    kubernetes: { binaries: join(dir, 'kubernetes') },
    transport: 'sim',
    sim: { rebootSeconds: 0.1, latencyMs: 0 },
    reboot: { timeout: '20s', settle: '50ms' },
    resyncInterval: '1h',
  });
  daemon = await startDaemon(config, { log: pino({ level: 'silent' }) });
  await daemon.reconciler.settled();
}, 60_000);

afterAll(async () => {
  await daemon?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('Windows Kubernetes workers from Git', () => {
  it('joins both workers with the secrets file token, which no API answer shows', async () => {
    expect(daemon.status.list().map((n) => [n.name, n.state])).toEqual([
      ['master', 'verified'],
      ['win-a', 'verified'],
      ['win-b', 'verified'],
    ]);
    expect(host('win-a').fs.read('C:\\k\\bootstrap-kubeconfig')).toContain(`token: ${BOOTSTRAP_TOKEN}`);
    expect(host('win-a').state.services.kubelet?.status).toBe('Running');
    expect(host('win-a').state.routes.map((r) => `${r.destinationPrefix} ${r.nextHop}`)).toContain('10.42.2.0/24 192.0.2.32');
    for (const path of ['/api/nodes', '/api/nodes/win-a', '/api/revisions', '/metrics']) {
      expect(await (await fetch(`${daemon.url}${path}`)).text()).not.toContain(BOOTSTRAP_TOKEN);
    }
  });

  it('upgrades a worker on a version commit; refuses one newer than the control plane; reroutes on a subnet commit', async () => {
    write(
      'nodes/win-a.yaml',
      'labels: { per_host_subnet: 10.42.1.0/24 }\noverlay_interface: Ethernet1\nversions:\n  kubernetes: v1.29.6\n',
    );
    const up = await push('win-a to v1.29.6');
    await waitUntil('the upgrade', () => daemon.status.get('win-a')?.lastAppliedRevision === up && allVerified());
    expect(host('win-a').fs.read('C:\\k\\kubelet.exe')).toBe('groundcrew-sim kubelet v1.29.6');
    expect(host('win-b').fs.read('C:\\k\\kubelet.exe')).toBe('groundcrew-sim kubelet v1.29.4');

    write(
      'nodes/win-a.yaml',
      'labels: { per_host_subnet: 10.42.1.0/24 }\noverlay_interface: Ethernet1\nversions:\n  kubernetes: v1.30.1\n',
    );
    const tooNew = await push('win-a to v1.30.1');
    const rejected = daemon.status.revisions().find((r) => r.sha === tooNew);
    expect(rejected).toMatchObject({ accepted: false });
    expect(rejected?.errors).toEqual([
      'nodes/win-a.yaml:4:15: kubelet v1.30.1 on node "win-a" is newer than the control plane (v1.29.4 on "master"): a kubelet must not be newer than its API server; upgrade the control plane first',
    ]);
    expect(host('win-a').fs.read('C:\\k\\kubelet.exe')).toBe('groundcrew-sim kubelet v1.29.6');

    git('revert', '--no-edit', 'HEAD');
    write(
      'nodes/win-a.yaml',
      'labels: { per_host_subnet: 10.42.5.0/24 }\noverlay_interface: Ethernet1\nversions:\n  kubernetes: v1.29.6\n',
    );
    const moved = await push('win-a moves to 10.42.5.0/24');
    await waitUntil('the reroute', () => daemon.status.get('win-b')?.lastAppliedRevision === moved && allVerified());
    const routesOfB = host('win-b').state.routes.map((r) => `${r.destinationPrefix} ${r.nextHop}`);
    expect(routesOfB).toContain('10.42.5.0/24 192.0.2.31');
    expect(routesOfB).not.toContain('10.42.1.0/24 192.0.2.31');
    expect(daemon.status.get('master')?.lastAppliedRevision).not.toBe(moved);
  });
});
