// A node's plan: which phases each kind of node needs, in order, why, and what it waits for.

import { describe, expect, it } from 'vitest';
import type { NodeSpec } from '../../../src/inventory/desired-state.js';
import { roleInput } from '../../../src/reconciler/role-input.js';
import { type NodePlan, planGates, planNode, planOrder, planSteps } from '../../../src/roles/plan.js';
import { parse, yaml } from '../inventory/helpers.js';

type Planned = NodeSpec & { plan: NodePlan };

function nodes(...lines: string[]): Map<string, Planned> {
  const result = parse(yaml(...lines));
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  const { state } = result;
  return new Map(state.nodes.map((n) => [n.name, { ...n, plan: planNode(roleInput(state, n)) }]));
}

/** One Windows node "w" and nothing else; `configuration` lines go under contrail_configuration. */
function windowsAlone(...configuration: string[]): Map<string, Planned> {
  return nodes(
    'instances:',
    '  w:',
    '    provider: bms_win',
    '    ip: 10.0.0.5',
    'contrail_configuration:',
    '  WINDOWS_PHYSICAL_INTERFACE: Ethernet1',
    ...configuration,
  );
}

const phasesFor = (node: Planned) => planSteps(node.plan);
const gatesFor = (node: Planned) => planGates(node.plan);

const cluster = nodes(
  'instances:',
  '  ctrl:',
  '    provider: bms',
  '    ip: 10.0.0.10',
  '    roles: { config: , control: , webui: , openstack: }',
  '  lin:',
  '    provider: bms',
  '    ip: 10.0.0.11',
  '    roles: { vrouter: , openstack_compute: }',
  '  win:',
  '    provider: bms_win',
  '    ip: 10.0.0.12',
  '    roles: { vrouter: , win_cnm_plugin: }',
  '  signed:',
  '    provider: bms_win',
  '    ip: 10.0.0.13',
  '    contrail_configuration: { WINDOWS_USE_SIGNED_VROUTER: true }',
  '    roles: { vrouter: , win_cnm_plugin: }',
  'contrail_configuration:',
  '  AUTH_MODE: keystone',
  '  WINDOWS_PHYSICAL_INTERFACE: Ethernet1',
  '  WINDOWS_ENABLE_TEST_SIGNING:',
);

const names = (node: Planned | undefined) => (node ? phasesFor(node).map((p) => p.phase) : []);

describe('the phases of a plan', () => {
  it('gives a Windows compute that wants test signing all seven phases, in order', () => {
    expect(names(cluster.get('win'))).toEqual(['prereqs', 'testSigning', 'rebootWait', 'openstack', 'vrouter', 'driver', 'verify']);
  });

  it('batches the reboots of prereqs and test signing; the machine takes one after the batch, Linux batches none', () => {
    const order = (name: string) => {
      const node = cluster.get(name);
      return node ? planOrder(node.plan) : undefined;
    };
    expect(order('win')?.rebootBatch).toEqual(['prereqs', 'testSigning']);
    expect(order('win')?.phases).toEqual(['prereqs', 'testSigning', 'openstack', 'vrouter', 'driver', 'verify']);
    expect(order('signed')?.rebootBatch).toEqual(['prereqs']);
    expect(order('lin')?.rebootBatch).toEqual([]);
  });

  it('drops test signing for a Windows node on the signed vRouter', () => {
    expect(names(cluster.get('signed'))).toEqual(['prereqs', 'rebootWait', 'openstack', 'vrouter', 'driver', 'verify']);
  });

  it('gives a Linux compute prereqs, openstack, vrouter and verify', () => {
    expect(names(cluster.get('lin'))).toEqual(['prereqs', 'openstack', 'vrouter', 'verify']);
  });

  it('gives a controller prereqs, openstack (a check of the Keystone kolla-ansible runs there) and verify', () => {
    const ctrl = cluster.get('ctrl');
    expect(names(ctrl)).toEqual(['prereqs', 'openstack', 'verify']);
    expect(ctrl && phasesFor(ctrl)[1]?.reason).toMatch(/this node has an openstack role; deployed by kolla-ansible, not groundcrew/);
    expect(ctrl?.plan.phases[1]?.resources.map((r) => r.name)).toEqual(['keystone/token']);
  });

  it('says why each phase is there', () => {
    const win = cluster.get('win');
    const reasons = win ? Object.fromEntries(phasesFor(win).map((p) => [p.phase, p.reason])) : {};
    expect(reasons.testSigning).toMatch(/WINDOWS_ENABLE_TEST_SIGNING is set and WINDOWS_USE_SIGNED_VROUTER is not/);
    expect(reasons.openstack).toMatch(/needs Keystone at 10\.0\.0\.10/);
    expect(reasons.vrouter).toMatch(/opencontrailnightly\/contrail-windows-vrouter:latest/);
  });

  it('skips openstack on a Windows node when nothing needs Keystone', () => {
    const noauth = windowsAlone();
    expect(names(noauth.get('w'))).toEqual(['prereqs', 'rebootWait', 'vrouter', 'driver', 'verify']);
  });
});

describe('the gates of a plan', () => {
  it('makes computes wait for the node that hosts Keystone', () => {
    for (const name of ['lin', 'win', 'signed']) {
      const node = cluster.get(name);
      expect(node && gatesFor(node).map((g) => `${g.kind}:${g.node}`)).toEqual(['keystone:ctrl']);
    }
  });

  it('gives the Keystone host itself, and a Keystone outside the inventory, no gate', () => {
    const ctrl = cluster.get('ctrl');
    expect(ctrl && gatesFor(ctrl)).toEqual([]);
    const outside = windowsAlone('  AUTH_MODE: keystone', '  KEYSTONE_AUTH_HOST: 10.0.0.100').get('w');
    expect(outside?.keystone).toEqual({ address: '10.0.0.100', source: 'KEYSTONE_AUTH_HOST' });
    expect(outside && gatesFor(outside)).toEqual([]);
  });
});
