// The MSIs of Contrail's Windows images and the product each registers with Windows Installer (the name
// Get-Package shows), from their WiX sources: Juniper/contrail-vrouter windows/installer/vrouter_msi.wxs
// ("vRouter") and utils/windows/utils_msi.wxs ("vRouter utilities"), Juniper/contrail-controller
// src/vnsw/agent/contrail/windows/msi/agent_msi.wxs ("Agent"), Juniper-Tungsten/contrail-windows-docker-driver
// msi.wxs ("Contrail CNM Plugin", from 2018-11) and, for Contrail 5.0, its wix.json ("Contrail Docker Driver").
// contrail-windows-ci's Clear-ComputeNode.ps1 (2018-09) removed them by these names: `Get-WmiObject Win32_product
// -Filter "name='Agent' OR name='vRouter' OR name='vRouter utilities' OR name='Contrail Docker Driver'"`.
//
// Each source fixes its ProductVersion (1.0.0, 0.0.1, ...) and product code: every Contrail build of an MSI is the
// same product at the same version to Windows, so which build is installed is recorded by groundcrew when it
// installs one (msi-resource.ts), not read from Windows Installer.

export interface ContrailMsi {
  /** The product name Windows Installer records. */
  product: string;
  /** The MSI under C:\Artifacts, as the image ships it. */
  file: string;
}

export const VROUTER_MSI: ContrailMsi = { product: 'vRouter', file: 'vrouter\\vRouter.msi' };
export const UTILS_MSI: ContrailMsi = { product: 'vRouter utilities', file: 'vrouter\\utils.msi' };
export const AGENT_MSI: ContrailMsi = { product: 'Agent', file: 'agent\\contrail-vrouter-agent.msi' };
export const DOCKER_DRIVER_MSI: ContrailMsi = { product: 'Contrail Docker Driver', file: 'docker-driver\\docker-driver.msi' };
export const CNM_PLUGIN_MSI: ContrailMsi = { product: 'Contrail CNM Plugin', file: 'cnm-plugin\\contrail-cnm-plugin.msi' };

/** Every product groundcrew may have installed, in the order they can be removed (nothing before what needs it). */
export const REMOVAL_ORDER = [CNM_PLUGIN_MSI, DOCKER_DRIVER_MSI, AGENT_MSI, UTILS_MSI, VROUTER_MSI].map((m) => m.product);
