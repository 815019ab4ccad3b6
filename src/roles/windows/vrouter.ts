// The vRouter on Windows: artifacts from <registry>/contrail-windows-vrouter:<version>, the test
// certificate trusted (unsigned builds), the vRouter, utilities and agent MSIs, the agent's services.

import { psQuote } from '../../dataplane/quote.js';
import type { WindowsRoleInput } from '../input.js';
import { applied, type Phase } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { ARTIFACTS, artifacts } from './artifacts.js';
import { debugDlls } from './debug-dlls.js';
import { msiResource, serviceDefined } from './msi-resource.js';
import { virtualRouterRegistered } from './registration.js';

const optional = (r: Resource | undefined): Resource[] => (r ? [r] : []);

const CER = `${ARTIFACTS}\\vrouter\\vRouter.cer`;
export const AGENT_DIR = 'C:\\Program Files\\Juniper Networks\\agent';

function certificate(): Resource {
  const ps = `if (Test-Path -LiteralPath ${psQuote(CER)}) { $t = (Get-PfxCertificate -FilePath ${psQuote(CER)}).Thumbprint; [pscustomobject]@{ root = (Test-Path -Path ('Cert:\\LocalMachine\\Root\\' + $t)); publisher = (Test-Path -Path ('Cert:\\LocalMachine\\TrustedPublisher\\' + $t)) } } else { $null }`;
  return {
    name: 'certificate/vRouter',
    facts: [{ id: 'vrouter.cert', ps }],
    test(facts) {
      const c = facts.get('vrouter.cert') as { root: boolean; publisher: boolean } | null;
      return compare({ Root: [c?.root ?? false, true], TrustedPublisher: [c?.publisher ?? false, true] });
    },
    async set({ exec, signal }) {
      const script = ['Root', 'TrustedPublisher']
        .map((s) => `Import-Certificate -FilePath ${psQuote(CER)} -CertStoreLocation ${psQuote(`Cert:\\LocalMachine\\${s}`)} | Out-Null`)
        .join('\n');
      return applied(exec, script, 'trust the vRouter test certificate', { signal });
    },
  };
}

export function vrouterImage(input: WindowsRoleInput): string {
  return `${input.registry}/contrail-windows-vrouter:${input.contrailVersion}`;
}

export function windowsVrouter(input: WindowsRoleInput): Phase {
  const v = input.contrailVersion;
  return {
    name: 'vrouter',
    resources: [
      artifacts('vrouter', vrouterImage(input), [
        'vrouter\\vRouter.msi',
        'vrouter\\utils.msi',
        'agent\\contrail-vrouter-agent.msi',
        'vrouter\\vRouter.cer',
      ]),
      ...(input.testSigning ? [certificate()] : []),
      msiResource({ product: 'Contrail vRouter', file: `${ARTIFACTS}\\vrouter\\vRouter.msi`, version: v, disruptive: true }),
      msiResource({ product: 'Contrail vRouter Utilities', file: `${ARTIFACTS}\\vrouter\\utils.msi`, version: v }),
      msiResource({ product: 'Contrail vRouter Agent', file: `${ARTIFACTS}\\agent\\contrail-vrouter-agent.msi`, version: v }),
      serviceDefined('contrail-vrouter-agent', `${AGENT_DIR}\\contrail-vrouter-agent.exe`, 'Automatic'),
      serviceDefined('contrail-vrouter-nodemgr', `${AGENT_DIR}\\contrail-vrouter-nodemgr.exe`, 'Automatic'),
      ...optional(debugDlls(input)),
      ...optional(virtualRouterRegistered(input)),
    ],
  };
}
