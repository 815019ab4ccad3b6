// Role inputs for tests: a Windows and a Linux compute like the example inventory's, adjusted per test.

import type { KubeletInput, LinuxRoleInput, WindowsRoleInput } from '../../src/roles/input.js';

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

/** A kubelet as the k8s_node role is given it (the cluster's values are the example inventory's). */
export function kubeletInput(version: string): KubeletInput {
  return {
    version,
    binary: { sha256: 'ab', read: async () => Buffer.from('kubelet') },
    apiServer: 'https://192.0.2.10:6443',
    caData: 'CA',
    bootstrapToken: 'abcdef.0123456789abcdef',
    clusterDns: '10.96.0.10',
    clusterDomain: 'cluster.local',
  };
}

/** Docker on a Windows host as the prereqs phase installs it, one PowerShell line each. */
export const WINDOWS_DOCKER_INSTALL = [
  "Install-PackageProvider -Name 'NuGet' -MinimumVersion '2.8.5.201' -Force | Out-Null",
  "Install-Module -Name 'DockerMsftProvider' -Repository 'PSGallery' -Force",
  "Install-Package -Name docker -ProviderName DockerMsftProvider -RequiredVersion '18.09' -Force | Out-Null",
  "New-Item -ItemType Directory -Path 'C:\\ProgramData\\docker\\config' -Force | Out-Null",
  'Set-Content -Path \'C:\\ProgramData\\docker\\config\\daemon.json\' -Value \'{"bridge":"none"}\'',
  'Start-Service -Name docker',
];

/**
 * instances.yaml of a Kubernetes cluster: `master` (k8s_master, Linux) at 192.0.2.10 and Windows workers
 * (k8s_node) at 192.0.2.31 onwards; `configuration` lines (indented) go under contrail_configuration.
 */
export function kubernetesInstances(master: string, workers: string[], configuration: string[] = []): string {
  const lines = ['provider_config:', '  bms: { ssh_user: root }', '  bms_win: { ansible_user: Administrator }'];
  if (configuration.length > 0) lines.push('contrail_configuration:', ...configuration);
  lines.push('instances:', `  ${master}:`, '    provider: bms', '    ip: 192.0.2.10', '    roles: { k8s_master: }');
  for (const [i, worker] of workers.entries())
    lines.push(`  ${worker}:`, '    provider: bms_win', `    ip: 192.0.2.${31 + i}`, '    roles: { k8s_node: }');
  return `${lines.join('\n')}\n`;
}
