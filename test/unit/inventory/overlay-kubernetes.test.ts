// Per-host subnets and Windows Kubernetes workers in the inventory: what is rejected (with file:line:col),
// and the routes the planner gives every node.

import { describe, expect, it } from 'vitest';
import type { DesiredState } from '../../../src/inventory/desired-state.js';
import { planOverlay } from '../../../src/inventory/overlay.js';
import { roleInput } from '../../../src/reconciler/role-input.js';
import { planNode, planSteps } from '../../../src/roles/plan.js';
import { errorsOf, parse, warningsOf, yaml } from './helpers.js';

const INSTANCES = yaml(
  'contrail_configuration:',
  '  KEYSTONE_AUTH_HOST: 10.0.9.5',
  'instances:',
  '  master:',
  '    provider: bms',
  '    ip: 10.0.0.10',
  '    roles: { k8s_master: }',
  '  lin1:',
  '    provider: bms',
  '    ip: 10.0.0.21',
  '    roles: { k8s_node: }',
  '  win1:',
  '    provider: bms_win',
  '    ip: 10.0.0.31',
  '    roles: { k8s_node: }',
  '  win2:',
  '    provider: bms_win',
  '    ip: 10.0.0.32',
  '    roles: { k8s_node: }',
);
const REPO = yaml('defaults:', '  versions:', '    kubernetes: v1.29.4');
const subnet = (cidr: string, ...more: string[]) => yaml(`labels: { per_host_subnet: ${cidr} }`, ...more);

function ok(nodeFiles: Record<string, string>): DesiredState {
  const result = parse(INSTANCES, nodeFiles, REPO);
  if (!result.ok) throw new Error(errorsOf(result).join('\n'));
  return result.state;
}

describe('per_host_subnet checks', () => {
  const cases: { name: string; files: Record<string, string>; errors: string[] }[] = [
    {
      name: 'not a CIDR block',
      files: { 'nodes/win1.yaml': subnet('10.42.1.0') },
      errors: ['nodes/win1.yaml:1:28: per_host_subnet: "10.42.1.0" is not an IPv4 CIDR block like 10.42.1.0/24'],
    },
    {
      name: 'overlay_interface without a subnet to bind, or on a Linux node',
      files: {
        'nodes/win1.yaml': yaml('overlay_interface: Ethernet1'),
        'nodes/lin1.yaml': subnet('10.42.3.0/24', 'overlay_interface: eth1'),
      },
      errors: [
        'nodes/lin1.yaml:2:20: overlay_interface is for Windows nodes: a Linux node puts its subnet on a bridge of its own',
        "nodes/win1.yaml:1:20: overlay_interface needs labels.per_host_subnet: it names the adapter that subnet's network binds",
      ],
    },
    {
      name: 'host bits set',
      files: { 'nodes/win1.yaml': subnet('10.42.1.7/24') },
      errors: ['nodes/win1.yaml:1:28: per_host_subnet: "10.42.1.7/24" has host bits set (did you mean 10.42.1.0/24?)'],
    },
    {
      name: 'two subnets overlap',
      files: { 'nodes/lin1.yaml': subnet('10.42.0.0/16'), 'nodes/win2.yaml': subnet('10.42.7.0/24') },
      errors: [
        'nodes/win2.yaml:1:28: per_host_subnet 10.42.7.0/24 of node "win2" overlaps 10.42.0.0/16 of node "lin1" (nodes/lin1.yaml:1:28)',
      ],
    },
    {
      name: 'an earlier node inside a later, wider subnet (reported on the later one)',
      files: {
        'nodes/lin1.yaml': subnet('10.42.7.0/24'),
        'nodes/win1.yaml': subnet('10.43.0.0/24'),
        'nodes/win2.yaml': subnet('10.42.0.0/16'),
      },
      errors: [
        'nodes/win2.yaml:1:28: per_host_subnet 10.42.0.0/16 of node "win2" overlaps 10.42.7.0/24 of node "lin1" (nodes/lin1.yaml:1:28)',
      ],
    },
    {
      name: 'a subnet holding another node',
      files: { 'nodes/win1.yaml': subnet('10.0.0.0/27') },
      errors: [
        'nodes/win1.yaml:1:28: per_host_subnet 10.0.0.0/27 of node "win1" contains the address of node "master" (instances.yaml:6:9): the node would be routed as a pod',
      ],
    },
    {
      name: 'a gateway on an address the cluster uses',
      files: { 'nodes/win1.yaml': subnet('10.0.9.4/30') },
      errors: [
        'nodes/win1.yaml:1:28: per_host_subnet 10.0.9.4/30 of node "win1" would put its gateway 10.0.9.5 on KEYSTONE_AUTH_HOST (10.0.9.5)',
      ],
    },
    {
      name: 'a subnet over the metadata service address',
      files: { 'nodes/win1.yaml': subnet('169.254.169.0/24') },
      errors: [
        'nodes/win1.yaml:1:28: per_host_subnet 169.254.169.0/24 of node "win1" contains the service address 169.254.169.250, which every node routes through its own gateway',
      ],
    },
    {
      name: 'published ports outside the subnet, on the gateway, twice, or without a subnet',
      files: {
        'nodes/win1.yaml': subnet(
          '10.42.1.0/24',
          'published_ports:',
          '  - { port: 80, to: "10.42.2.5:80" }',
          '  - { port: 81, to: "10.42.1.1:80" }',
          '  - { port: 81, to: "10.42.1.9:80" }',
        ),
        'nodes/win2.yaml': yaml('published_ports:', '  - { port: 80, to: "10.42.1.9:80" }'),
      },
      errors: [
        'nodes/win1.yaml:3:21: 10.42.2.5:80 is not a pod address of node "win1": expected an address in 10.42.1.0/24 other than its gateway 10.42.1.1',
        'nodes/win1.yaml:4:21: 10.42.1.1:80 is not a pod address of node "win1": expected an address in 10.42.1.0/24 other than its gateway 10.42.1.1',
        'nodes/win1.yaml:5:13: port 81 is published twice on node "win1"',
        'nodes/win2.yaml:2:3: published_ports needs labels.per_host_subnet: the ports forward into that subnet',
      ],
    },
  ];
  for (const c of cases) {
    it(`rejects ${c.name}`, () => {
      expect(errorsOf(parse(INSTANCES, c.files, REPO))).toEqual(c.errors);
    });
  }
});

describe('the overlay planner', () => {
  it('routes every labelled node to every other through that node, and nothing to unlabelled nodes', () => {
    const state = ok({
      'nodes/lin1.yaml': subnet('10.42.2.0/24'),
      'nodes/win1.yaml': subnet('10.42.1.0/24', 'published_ports:', '  - { port: 8080, to: "10.42.1.10:80" }'),
    });
    const plans = planOverlay(state.nodes);
    expect([...plans.keys()]).toEqual(['lin1', 'win1']);
    expect(plans.get('win1')).toEqual({
      subnet: '10.42.1.0/24',
      gateway: '10.42.1.1',
      prefixLength: 24,
      routes: [
        { prefix: '10.42.2.0/24', via: '10.0.0.21', kind: 'peer', node: 'lin1' },
        { prefix: '169.254.169.250/32', via: '10.42.1.1', kind: 'service' },
        { prefix: '169.254.169.251/32', via: '10.42.1.1', kind: 'service' },
      ],
      ports: [{ port: 8080, toAddress: '10.42.1.10', toPort: 80 }],
    });
    expect(plans.get('lin1')?.routes[0]).toEqual({ prefix: '10.42.1.0/24', via: '10.0.0.31', kind: 'peer', node: 'win1' });
    const names = (n: string) =>
      planSteps(planNode(roleInput(state, state.nodes.find((x) => x.name === n) as DesiredState['nodes'][number]))).map((p) => p.phase);
    expect(names('win1')).toEqual(['prereqs', 'rebootWait', 'overlay', 'kubelet', 'verify']);
    expect(names('lin1')).toEqual(['prereqs', 'overlay', 'verify']);
    expect(names('win2')).toEqual(['prereqs', 'rebootWait', 'kubelet', 'verify']);
  });
});

describe('Windows k8s_node versions', () => {
  it('refuses a kubelet newer than the control plane, where the version was written', () => {
    const result = parse(INSTANCES, { 'nodes/win1.yaml': yaml('versions:', '  kubernetes: v1.30.0') }, REPO);
    expect(errorsOf(result)).toEqual([
      'nodes/win1.yaml:2:15: kubelet v1.30.0 on node "win1" is newer than the control plane (v1.29.4 on "master"): a kubelet must not be newer than its API server; upgrade the control plane first',
    ]);
  });

  it('accepts an older kubelet and warns past the supported skew', () => {
    expect(parse(INSTANCES, { 'nodes/win1.yaml': yaml('versions:', '  kubernetes: v1.28.9') }, REPO).ok).toBe(true);
    const old = parse(INSTANCES, { 'nodes/win1.yaml': yaml('versions:', '  kubernetes: v1.25.0') }, REPO);
    expect(old.ok).toBe(true);
    expect(warningsOf(old)).toEqual([
      'nodes/win1.yaml:2:15: warning: kubelet v1.25.0 on node "win1" is more than three minor versions older than the control plane (v1.29.4): outside Kubernetes\' supported skew',
    ]);
  });

  it('needs a version and a control plane to compare it with', () => {
    expect(errorsOf(parse(INSTANCES, {}))).toEqual([
      'instances.yaml:12:3: node "win1" has role k8s_node but no Kubernetes version: set versions.kubernetes in nodes/win1.yaml or defaults.versions.kubernetes in groundcrew.yaml',
      'instances.yaml:16:3: node "win2" has role k8s_node but no Kubernetes version: set versions.kubernetes in nodes/win2.yaml or defaults.versions.kubernetes in groundcrew.yaml',
    ]);
    const noMaster = INSTANCES.replace('roles: { k8s_master: }', 'roles: { config: }');
    expect(errorsOf(parse(noMaster, {}, REPO))[0]).toBe(
      'groundcrew.yaml:3:17: node "win1" has role k8s_node but no instance with role k8s_master has a Kubernetes version: the kubelet joins that control plane and must not be newer than it',
    );
  });
});
