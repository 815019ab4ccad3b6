// Role inputs for tests: a Windows and a Linux compute like the example inventory's, adjusted per test.

import type { LinuxRoleInput, WindowsRoleInput } from '../../src/roles/input.js';

export function windowsInput(overrides: Partial<WindowsRoleInput> = {}): WindowsRoleInput {
  return {
    node: 'win1',
    roles: ['vrouter', 'win_cnm_plugin'],
    contrailVersion: '5.0.1',
    dockerVersion: '18.09',
    registry: 'opencontrailnightly',
    testSigning: true,
    physicalInterface: 'Ethernet1',
    controlNodes: '192.0.2.10',
    ...overrides,
  };
}

export function linuxComputeInput(overrides: Partial<LinuxRoleInput> = {}): LinuxRoleInput {
  return {
    node: 'compute-l1',
    roles: ['vrouter', 'openstack_compute'],
    contrailVersion: '5.0.1',
    registry: 'opencontrailnightly',
    vrouter: true,
    hostsKeystone: false,
    environment: { CONTROLLER_NODES: '192.0.2.10' },
    ...overrides,
  };
}
