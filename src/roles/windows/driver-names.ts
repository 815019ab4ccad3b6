// The Contrail docker driver changed names after 5.0 (c-a-d's history: create_win_docker_driver.yml, then the
// contrail_cnm_windows role): its image, MSI, binary and service. The version decides which a node gets.

import { CNM_PLUGIN_MSI, DOCKER_DRIVER_MSI } from './msi-products.js';

export interface DriverNames {
  /** The image's repository under the registry. */
  repository: string;
  /** The MSI's path under C:\Artifacts. */
  msi: string;
  /** The product name the MSI registers (msi-products.ts). */
  product: string;
  /** The binary the MSI installs, which NSSM runs. */
  exe: string;
  service: string;
}

/** c-a-d create_win_docker_driver.yml (Contrail 5.0): contrail-windows-docker-driver, docker-driver.msi. */
const DOCKER_DRIVER: DriverNames = {
  repository: 'contrail-windows-docker-driver',
  msi: DOCKER_DRIVER_MSI.file,
  product: DOCKER_DRIVER_MSI.product,
  exe: 'C:\\Program Files\\Juniper Networks\\contrail-windows-docker.exe',
  service: 'contrail-docker-driver',
};

/** c-a-d contrail_cnm_windows (after 5.0): contrail-windows-cnm-plugin, contrail-cnm-plugin.msi. */
const CNM_PLUGIN: DriverNames = {
  repository: 'contrail-windows-cnm-plugin',
  msi: CNM_PLUGIN_MSI.file,
  product: CNM_PLUGIN_MSI.product,
  exe: 'C:\\Program Files\\Juniper Networks\\cnm-plugin\\contrail-cnm-plugin.exe',
  service: 'contrail-cnm-plugin',
};

export function driverNames(contrailVersion: string): DriverNames {
  return /^5\.0(\.|$)/.test(contrailVersion) ? DOCKER_DRIVER : CNM_PLUGIN;
}

/** Every name a driver service has had: what deconfigure stops and removes. */
export const DRIVER_SERVICES = [DOCKER_DRIVER.service, CNM_PLUGIN.service];

/** The drivers of other Contrail versions than this one: on an upgrade across 5.0 and 5.1, the one to take off. */
export function otherDrivers(contrailVersion: string): DriverNames[] {
  const wanted = driverNames(contrailVersion);
  return [DOCKER_DRIVER, CNM_PLUGIN].filter((d) => d !== wanted);
}
