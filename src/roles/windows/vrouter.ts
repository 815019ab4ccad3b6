// The vRouter on Windows: artifacts from <registry>/contrail-windows-vrouter[-signed]:<version>, the test
// certificate trusted (test-signed builds), the vRouter, utilities and agent MSIs, the agent's services.

import { psQuote } from '../../dataplane/quote.js';
import type { WindowsRoleInput } from '../input.js';
import { type Phase, setByCommand } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { AGENT_START, AGENT_START_PARAMETERS, agentStartScript, POWERSHELL_EXE } from './agent-start.js';
import { ARTIFACTS, artifacts } from './artifacts.js';
import { LOG_DIR, NODEMGR_CONFIG, nodemgrConfig } from './contrail-config.js';
import { debugDlls } from './debug-dlls.js';
import { serviceRunning } from './driver.js';
import { AGENT_MSI, UTILS_MSI, VROUTER_MSI } from './msi-products.js';
import { msiResource } from './msi-resource.js';
import { virtualRouterRegistered } from './registration.js';
import { configFile, nssmService } from './service-resources.js';

const optional = (r: Resource | undefined): Resource[] => (r ? [r] : []);

const CER = `${ARTIFACTS}\\vrouter\\vRouter.cer`;
/** Python 2.7 from Chocolatey (c-a-d: win_chocolatey python2 2.7.13); nodemgr lands in its Scripts. */
const PIP = 'C:\\Python27\\Scripts\\pip.exe';
const NODEMGR_EXE = 'C:\\Python27\\Scripts\\contrail-nodemgr.exe';
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
      return setByCommand(exec, script, 'trust the vRouter test certificate', { signal });
    },
  };
}

/** nodemgr: pip-installed from the image's C:\\Artifacts\\nodemgr\\*.tar.gz (Installation.ps1 Install-Nodemgr). */
function nodemgrInstalled(): Resource {
  const id = 'nodemgr.installed';
  return {
    name: 'nodemgr/pip',
    facts: [{ id, ps: `Test-Path -LiteralPath ${psQuote(NODEMGR_EXE)}` }],
    test: (facts) => compare({ Installed: [facts.get(id), true] }),
    async set({ exec, signal }) {
      const script = [
        `foreach ($a in @(Get-ChildItem -Path ${psQuote(`${ARTIFACTS}\\nodemgr`)} | Where-Object { $_.Name -like '*.tar.gz' })) {`,
        `  & ${psQuote(PIP)} install $a.FullName`,
        '  if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }',
        '}',
      ].join('\n');
      return setByCommand(exec, script, 'pip install nodemgr', { signal });
    },
  };
}

/**
 * The vRouter's image: `contrail-windows-vrouter-signed` (a production-signed driver) when
 * WINDOWS_USE_SIGNED_VROUTER is set, else `contrail-windows-vrouter` (test-signed), as c-a-d's
 * contrail_vrouter_windows selects it ("select image with signed vRouter").
 */
export function vrouterImage(input: WindowsRoleInput): string {
  const repository = input.signedVrouter ? 'contrail-windows-vrouter-signed' : 'contrail-windows-vrouter';
  return `${input.registry}/${repository}:${input.contrailVersion}`;
}

export function windowsVrouter(input: WindowsRoleInput): Phase {
  const v = input.contrailVersion;
  return {
    name: 'vrouter',
    resources: [
      artifacts('vrouter', vrouterImage(input), [VROUTER_MSI.file, UTILS_MSI.file, AGENT_MSI.file, 'vrouter\\vRouter.cer', 'nodemgr']),
      ...(input.testSigning ? [certificate()] : []),
      msiResource({ product: VROUTER_MSI.product, file: `${ARTIFACTS}\\${VROUTER_MSI.file}`, version: v, disruptive: true }),
      msiResource({ product: UTILS_MSI.product, file: `${ARTIFACTS}\\${UTILS_MSI.file}`, version: v }),
      msiResource({ product: AGENT_MSI.product, file: `${ARTIFACTS}\\${AGENT_MSI.file}`, version: v }),
      nodemgrInstalled(),
      configFile('nodemgr', NODEMGR_CONFIG, () => nodemgrConfig(input), 'contrail-vrouter-nodemgr'),
      // contrail-windows-ci Service.ps1 New-NodeMgrService; c-a-d contrail_vrouter_windows (win_nssm, auto).
      nssmService({
        name: 'contrail-vrouter-nodemgr',
        application: NODEMGR_EXE,
        parameters: '--nodetype contrail-vrouter',
        start: 'Automatic',
        log: `${LOG_DIR}\\contrail-vrouter-nodemgr.log`,
      }),
      serviceRunning('contrail-vrouter-nodemgr'),
      // The agent through its start script (agent-start.ts), as c-a-d runs entrypoint.ps1; started by the driver phase.
      configFile(
        'agent-start',
        AGENT_START,
        () => agentStartScript(input, `${AGENT_DIR}\\contrail-vrouter-agent.exe`),
        'contrail-vrouter-agent',
      ),
      nssmService({
        name: 'contrail-vrouter-agent',
        application: POWERSHELL_EXE,
        parameters: AGENT_START_PARAMETERS,
        start: 'Manual',
        log: `${LOG_DIR}\\contrail-vrouter-agent-service.log`,
      }),
      ...optional(debugDlls(input)),
      ...optional(virtualRouterRegistered(input)),
    ],
  };
}
