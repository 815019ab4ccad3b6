// Keystone and the config API across simulated hosts: the openstack phases (checks of the external controller
// kolla-ansible deployed, which the simulated ctrl1 stands for) and the vRouter's registration.

import { beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../../src/dataplane/executor.js';
import { SimExecutor, SimShells } from '../../../src/dataplane/sim-executor.js';
import type { KeystoneInput, LinuxRoleInput, WindowsRoleInput } from '../../../src/roles/input.js';
import { linuxPlan } from '../../../src/roles/linux/plan.js';
import { windowsPlan } from '../../../src/roles/windows/plan.js';
import { LinuxHost } from '../../../src/sim/linux/linux-host.js';
import { SimNetwork } from '../../../src/sim/network.js';
import { WindowsHost } from '../../../src/sim/windows/windows-host.js';
import { applyPhase } from '../../support/apply-phase.js';
import { Recorder } from '../../support/recorder.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const PASSWORD = 'c0ntrail123-secret';
const keystone = (password = PASSWORD): KeystoneInput => ({
  address: '192.0.2.10',
  source: 'KEYSTONE_AUTH_HOST',
  user: 'admin',
  password,
  project: 'admin',
  domain: 'Default',
});

/** `keystoneUp: false`: the controller's Keystone is not deployed yet (kolla-ansible has not run). */
function cluster({ keystoneUp = true } = {}) {
  const network = new SimNetwork();
  const controller = LinuxHost.fresh('ctrl1', {}, { configApi: true, ...(keystoneUp ? { keystone: { password: PASSWORD } } : {}) });
  const compute = LinuxHost.fresh('compute-l1');
  const win = WindowsHost.fresh({ hostname: 'win1', features: ['Containers', 'Hyper-V'], catalog: { signedVrouter: true } });
  for (const [address, host] of [
    ['192.0.2.10', controller],
    ['192.0.2.21', compute],
  ] as const) {
    network.attach(address, host);
    host.network = network;
  }
  win.network = network;
  return { controller, compute, win, exec: (host: LinuxHost | WindowsHost) => new Recorder(new SimExecutor({ host, shells })) };
}

const linuxInput = (overrides: Partial<LinuxRoleInput>): LinuxRoleInput => ({
  node: 'x',
  roles: [],
  contrailVersion: '5.0.1',
  registry: 'opencontrailnightly',
  vrouter: false,
  hostsKeystone: false,
  environment: {},
  ...overrides,
});

const windowsInput = (overrides: Partial<WindowsRoleInput> = {}): WindowsRoleInput => ({
  node: 'win1',
  roles: ['vrouter', 'win_cnm_plugin'],
  contrailVersion: '5.0.1',
  registry: 'opencontrailnightly',
  testSigning: false,
  signedVrouter: true,
  physicalInterface: 'Ethernet1',
  controlNodes: '192.0.2.10',
  address: '192.0.2.31',
  keystone: keystone(),
  configApi: { address: '192.0.2.10' },
  ...overrides,
});

/** The Keystone host checks its own Keystone (it deploys nothing: kolla-ansible did). */
const ctrlInput = linuxInput({
  node: 'ctrl1',
  hostsKeystone: true,
  keystone: { ...keystone(), source: 'this node has an openstack role' },
});

async function converge(exec: Executor, phases: { name: string; resources: unknown[] }[]) {
  const outcomes = [];
  for (const phase of phases) outcomes.push(await applyPhase(exec, phase as never));
  return outcomes;
}

describe('Keystone from the nodes', () => {
  it('computes get a token from the controller that hosts Keystone; the password never appears in a script', async () => {
    const c = cluster();
    const ctrlExec = c.exec(c.controller);
    await converge(ctrlExec, linuxPlan(ctrlInput).phases);
    const computeExec = c.exec(c.compute);
    const compute = linuxInput({ node: 'compute-l1', vrouter: true, keystone: keystone(), novaApi: { address: '192.0.2.10' } });
    const outcomes = await converge(computeExec, linuxPlan(compute).phases);
    const openstack = outcomes.find((o) => o.phase === 'openstack');
    expect(openstack?.resources.map((r) => [r.resource, r.status])).toEqual([
      ['keystone/token', 'ok'],
      ['nova-api/versions', 'ok'],
    ]);
    const winExec = c.exec(c.win);
    const winOutcomes = await converge(winExec, windowsPlan(windowsInput()).phases);
    expect(winOutcomes.map((o) => [o.phase, o.inDesiredState])).toEqual([
      ['prereqs', true],
      ['openstack', true],
      ['vrouter', true],
      ['driver', true],
      ['verify', true],
    ]);
    for (const scripts of [ctrlExec.scripts, computeExec.scripts, winExec.scripts]) expect(scripts.join('\n')).not.toContain(PASSWORD);
  });

  it('Keystone not up yet is GC_KEYSTONE_UNAVAILABLE and retryable', async () => {
    const c = cluster({ keystoneUp: false });
    await expect(converge(c.exec(c.controller), linuxPlan(ctrlInput).phases)).rejects.toMatchObject({ code: 'GC_KEYSTONE_UNAVAILABLE' });
    await expect(
      converge(c.exec(c.compute), linuxPlan(linuxInput({ node: 'compute-l1', keystone: keystone() })).phases),
    ).rejects.toMatchObject({
      code: 'GC_KEYSTONE_UNAVAILABLE',
      retryable: true,
    });
    await expect(converge(c.exec(c.win), windowsPlan(windowsInput()).phases)).rejects.toMatchObject({
      code: 'GC_KEYSTONE_UNAVAILABLE',
      message: expect.stringMatching(/Unable to connect to the remote server/),
    });
  });

  it('wrong credentials are GC_KEYSTONE_AUTH and terminal', async () => {
    const c = cluster();
    await converge(c.exec(c.controller), linuxPlan(ctrlInput).phases);
    await expect(
      converge(c.exec(c.compute), linuxPlan(linuxInput({ node: 'compute-l1', keystone: keystone('wrong') })).phases),
    ).rejects.toMatchObject({
      code: 'GC_KEYSTONE_AUTH',
      retryable: false,
    });
    await expect(converge(c.exec(c.win), windowsPlan(windowsInput({ keystone: keystone('wrong') })).phases)).rejects.toMatchObject({
      code: 'GC_KEYSTONE_AUTH',
      message: expect.stringMatching(/\(401\) Unauthorized/),
    });
  });
});

describe("the controller's nova-api from a compute", () => {
  it('a compute whose nova-api does not answer is GC_NOVA_API_UNAVAILABLE, retryable, with what curl said', async () => {
    const c = cluster();
    // Keystone answers; nothing serves 8774 at the address given (the compute itself).
    const input = linuxInput({ node: 'compute-l1', keystone: keystone(), novaApi: { address: '192.0.2.21' } });
    await expect(converge(c.exec(c.compute), linuxPlan(input).phases)).rejects.toMatchObject({
      code: 'GC_NOVA_API_UNAVAILABLE',
      retryable: true,
      message: expect.stringMatching(/nova-api at http:\/\/192\.0\.2\.21:8774\/ did not list its versions from this node: curl exit 7/),
    });
  });
});

describe('the virtual router in the config API', () => {
  it('is created once; a lost marker meets 409, which also means done', async () => {
    const c = cluster();
    await converge(c.exec(c.controller), linuxPlan(ctrlInput).phases);
    const exec = c.exec(c.win);
    await converge(exec, windowsPlan(windowsInput()).phases);
    expect(c.controller.state.controller?.configApi?.virtualRouters).toEqual({ win1: { ip: '192.0.2.31' } });
    const created = c.controller.state.journal.filter((j) => j.startsWith('config-api')).length;
    await converge(exec, windowsPlan(windowsInput()).phases);
    expect(c.controller.state.journal.filter((j) => j.startsWith('config-api')).length).toBe(created);
    c.win.fs.remove('C:\\ProgramData\\Contrail\\var\\lib\\contrail\\virtual-router', false);
    const outcomes = await converge(exec, windowsPlan(windowsInput()).phases);
    expect(outcomes.find((o) => o.phase === 'vrouter')?.resources.find((r) => r.resource === 'config-api/virtual-router')).toMatchObject({
      status: 'changed',
    });
    expect(outcomes.every((o) => o.inDesiredState)).toBe(true);
  });
});

describe('debug DLLs', () => {
  it('are copied into System32 by content hash, through stdin, and left alone once there', async () => {
    const c = cluster();
    const dll = { name: 'vRouter-debug.dll', content: Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0xff, 0xfe, 0x00, 0x01]) };
    const exec = c.exec(c.win);
    const input = windowsInput({ keystone: undefined, configApi: undefined, debugDlls: [dll] });
    await converge(exec, windowsPlan(input).phases);
    expect(Buffer.from(c.win.fs.read('C:\\Windows\\System32\\vRouter-debug.dll') ?? '', 'latin1')).toEqual(dll.content);
    const journal = c.win.state.journal.length;
    const again = await converge(exec, windowsPlan(input).phases);
    expect(again.every((o) => o.resources.every((r) => r.status === 'ok'))).toBe(true);
    expect(c.win.state.journal.slice(journal)).toEqual([]);
    const changed = await converge(exec, windowsPlan({ ...input, debugDlls: [{ ...dll, content: Buffer.from('MZ new build') }] }).phases);
    expect(changed.find((o) => o.phase === 'vrouter')?.resources.find((r) => r.resource === 'debug-dlls')).toMatchObject({
      status: 'changed',
    });
  });
});

describe('what these phases send', () => {
  it('every PowerShell script of the openstack, registration and DLL resources parses with tree-sitter-powershell', async () => {
    const { loadPowerShellParser } = await import('../../../src/sim/shells/powershell/parser.js');
    const { POWERSHELL_PRELUDE } = await import('../../../src/dataplane/wire.js');
    const parser = await loadPowerShellParser();
    const c = cluster();
    await converge(c.exec(c.controller), linuxPlan(ctrlInput).phases);
    const exec = c.exec(c.win);
    await converge(exec, windowsPlan(windowsInput({ debugDlls: [{ name: 'a.dll', content: Buffer.from('MZ') }] })).phases);
    expect(exec.scripts.some((s) => s.includes('virtual-routers'))).toBe(true);
    for (const script of exec.scripts) {
      const tree = parser.parse(POWERSHELL_PRELUDE + script);
      expect(tree?.rootNode.hasError, script).toBe(false);
      tree?.delete();
    }
  });
});
