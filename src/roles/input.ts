// What a node's phases need to know, given by the reconciler (roles never read Git or other nodes).

export interface WindowsRoleInput {
  node: string;
  contrailVersion: string;
  /** Docker version to install when Docker is missing or differs (two parts, e.g. 18.09); any when unset. */
  dockerVersion?: string;
  registry: string;
  /** WINDOWS_ENABLE_TEST_SIGNING present and WINDOWS_USE_SIGNED_VROUTER not. */
  testSigning: boolean;
  /** WINDOWS_PHYSICAL_INTERFACE: the data-plane adapter the vRouter binds. */
  physicalInterface: string;
  /** Controllers the agent talks to (CONTROL_NODES, else CONTROLLER_NODES). */
  controlNodes: string;
}

export interface LinuxRoleInput {
  node: string;
  contrailVersion: string;
  registry: string;
  /** Role vrouter: the vRouter containers run here. */
  vrouter: boolean;
  /** Role openstack_compute: Kolla's nova_compute runs here. */
  openstackCompute: boolean;
  /** Role openstack / openstack_control: Keystone runs here. */
  hostsKeystone: boolean;
  /** OpenStack release of the Kolla images (kolla_config.kolla_globals.openstack_release). */
  openstackRelease: string;
  /** common_vrouter.env: the merged configuration, as KEY=value lines (secrets revealed by the caller). */
  environment: Record<string, string>;
}
