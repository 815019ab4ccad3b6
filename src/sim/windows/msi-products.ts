// What Contrail's Windows MSIs register with Windows Installer, from their WiX sources: the product name, version
// and product code Get-Package shows. None of them carries the Contrail version: the version is fixed in the
// source and the product code with it, so every build of one MSI is the same product at the same version (only
// the package code, generated per build, differs; the simulator keeps the build for it).

import type { MsiPackage } from './windows-state.js';

export interface MsiProductIdentity {
  name: string;
  version: string;
  /** Fixed in the WiX source; undefined where the source has `Id="*"` (a new code at every build). */
  productCode?: string;
}

export const MSI_PRODUCTS: Record<MsiPackage['product'] | 'docker-driver', MsiProductIdentity> = {
  // Juniper/contrail-vrouter windows/installer/vrouter_msi.wxs (windows/vrouter_msi.wxs before it): the same.
  vrouter: { name: 'vRouter', version: '1.0.0', productCode: '{CB877445-6E69-4BA8-9C8F-DDA1C92539B3}' },
  // Juniper/contrail-vrouter utils/windows/utils_msi.wxs.
  utils: { name: 'vRouter utilities', version: '0.0.1', productCode: '{299D687A-3C91-4202-92D2-47C83FD7122D}' },
  // Juniper/contrail-controller src/vnsw/agent/contrail/windows/msi/agent_msi.wxs.
  agent: { name: 'Agent', version: '0.0.1', productCode: '{0BA1E738-4DB7-4871-898C-545F16426BAF}' },
  // Juniper-Tungsten/contrail-windows-docker-driver msi.wxs (from "Rename MSI from docker-driver to
  // contrail-cnm-plugin", 2018-11, on master and R5.1).
  'cnm-plugin': { name: 'Contrail CNM Plugin', version: '1.0.0', productCode: '{47DD6748-F596-4E97-A087-C9C386466C5F}' },
  // The same repository before that (Contrail 5.0): go-msi with wix.json ("product": "Contrail Docker Driver")
  // and template/product.wxs (`Product Id="*"`), built by Invoke-Build.ps1 with `go-msi make --version 0.1`.
  'docker-driver': { name: 'Contrail Docker Driver', version: '0.1' },
};

/** Every name a product of `kind` is registered under (the docker driver had two). */
export function productNames(kind: MsiPackage['product']): string[] {
  return kind === 'cnm-plugin' ? [MSI_PRODUCTS['cnm-plugin'].name, MSI_PRODUCTS['docker-driver'].name] : [MSI_PRODUCTS[kind].name];
}
