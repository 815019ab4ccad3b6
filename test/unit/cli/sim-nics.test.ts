// The adapters a rehearsal's Windows host is built with, from the inventory as c-a-d reads it: per-instance and
// per-role overrides of WINDOWS_PHYSICAL_INTERFACE, overlay_interface, CONTROL_DATA_NET_LIST and VROUTER_GATEWAY.

import { describe, expect, it } from 'vitest';
import { nicsFor } from '../../../src/cli/sim-nics.js';
import type { NodeSpec } from '../../../src/inventory/desired-state.js';
import { parse } from '../inventory/helpers.js';

const INSTANCES = `provider_config:
  bms_win: { ansible_user: Administrator, ansible_password: x }
instances:
  w1:
    provider: bms_win
    ip: 192.0.2.31
    roles: { vrouter: , win_cnm_plugin: }
  w2:
    provider: bms_win
    ip: 192.0.2.32
    contrail_configuration:
      WINDOWS_PHYSICAL_INTERFACE: "Ethernet 3"
    roles: { vrouter: , win_cnm_plugin: }
  w3:
    provider: bms_win
    ip: 192.0.2.33
    roles:
      vrouter:
        WINDOWS_PHYSICAL_INTERFACE: Ethernet0
      win_cnm_plugin:
contrail_configuration:
  CONTROLLER_NODES: 192.0.2.10
  WINDOWS_PHYSICAL_INTERFACE: Ethernet2
`;

function nodes(instances: string, files: Record<string, string> = {}): Map<string, NodeSpec> {
  const result = parse(instances, files);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return new Map(result.state.nodes.map((n) => [n.name, n]));
}

const shape = (node: NodeSpec | undefined) =>
  nicsFor(node as NodeSpec).map((n) => `${n.name} ${n.ipAddress}/${n.prefixLength} ${n.origin}`);

describe('a rehearsal host is built with the adapters its inventory names', () => {
  it('the management adapter with the node ip, the named data adapter (instance and role overrides), and Ethernet1', () => {
    const all = nodes(INSTANCES, { 'nodes/w1.yaml': 'labels: { per_host_subnet: 10.42.1.0/24 }\noverlay_interface: Data\n' });
    expect(shape(all.get('w1'))).toEqual([
      'Ethernet0 192.0.2.31/24 Manual',
      'Data 172.16.1.31/24 Dhcp',
      'Ethernet1 172.16.2.31/24 Dhcp',
      'Ethernet2 172.16.0.31/24 Dhcp',
    ]);
    expect(shape(all.get('w2'))).toEqual([
      'Ethernet0 192.0.2.32/24 Manual',
      'Ethernet 3 172.16.0.32/24 Dhcp',
      'Ethernet1 172.16.1.32/24 Dhcp',
    ]);
    // A single-NIC node: its vRouter binds the management adapter, which keeps the node's own address.
    expect(shape(all.get('w3'))).toEqual(['Ethernet0 192.0.2.33/24 Manual', 'Ethernet1 172.16.0.33/24 Dhcp']);
  });

  it('CONTROL_DATA_NET_LIST gives the data adapter its block, and VROUTER_GATEWAY inside it its gateway', () => {
    const all = nodes(`${INSTANCES}  CONTROL_DATA_NET_LIST: 10.10.0.0/16,10.20.0.0/24\n  VROUTER_GATEWAY: 10.10.0.254\n`);
    const nics = new Map(nicsFor(all.get('w1') as NodeSpec).map((n) => [n.name, n]));
    // The vRouter's adapter takes the first block (the host part of 192.0.2.31 in a /16 is 2.31); the stock Ethernet1
    // the next, whose gateway is its first host.
    expect(nics.get('Ethernet2')).toEqual({
      name: 'Ethernet2',
      ipAddress: '10.10.2.31',
      prefixLength: 16,
      gateway: '10.10.0.254',
      origin: 'Dhcp',
    });
    expect(nics.get('Ethernet1')).toEqual({
      name: 'Ethernet1',
      ipAddress: '10.20.0.31',
      prefixLength: 24,
      gateway: '10.20.0.1',
      origin: 'Dhcp',
    });
  });
});
