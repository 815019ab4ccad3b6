// Verified: what a working Windows compute looks like. Checks only: a difference here is reported, and the
// node machine goes back to the phase that owns it at the next pass.

import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import { runsContrail, type WindowsRoleInput } from '../input.js';
import type { Phase } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { installed, MSI_PACKAGES_FACT } from './msi-resource.js';
import { serviceStatus } from './queries.js';
import { TEST_SIGNING_FACTS, testSigningState } from './test-signing.js';

const SERVICES = ['docker', 'contrail-cnm-plugin', 'contrail-vrouter-agent', 'contrail-vrouter-nodemgr'];
const PRODUCTS = ['Contrail vRouter', 'Contrail vRouter Utilities', 'Contrail vRouter Agent', 'Contrail Docker Driver'];

function check(name: string, facts: Resource['facts'], test: Resource['test']): Resource {
  return {
    name: `verify/${name}`,
    facts,
    test,
    async set() {
      throw errors.GC_STILL_DIFFERENT(`verify/${name}: the node is not in the state its phases left it; the next pass repairs it`);
    },
  };
}

export function windowsVerify(input: WindowsRoleInput): Phase {
  if (!runsContrail(input)) {
    // A node without Contrail roles (a Kubernetes worker, an overlay host): Docker is what prereqs left.
    const docker = check('services', [{ id: 'verify.docker', ps: serviceStatus('docker') }], (facts) =>
      compare({ docker: [facts.get('verify.docker'), 'Running'] }),
    );
    return { name: 'verified', resources: [docker] };
  }
  const resources: Resource[] = [
    check(
      'services',
      SERVICES.map((s) => ({ id: `verify.${s}`, ps: serviceStatus(s) })),
      (facts) => compare(Object.fromEntries(SERVICES.map((s) => [s, [facts.get(`verify.${s}`), 'Running']]))),
    ),
    check(
      'vrouter-extension',
      [
        {
          id: 'verify.extension',
          ps: `$e = Get-VMSwitchExtension -VMSwitchName ${psQuote(`Layered ${input.physicalInterface}`)} -Name 'vRouter forwarding extension' -ErrorAction SilentlyContinue; if ($e) { [pscustomobject]@{ enabled = $e.Enabled; running = $e.Running } } else { $null }`,
        },
      ],
      (facts) => {
        const e = facts.get('verify.extension') as { enabled: boolean; running: boolean } | null;
        return compare({ Enabled: [e?.enabled ?? false, true], Running: [e?.running ?? false, true] });
      },
    ),
    check(
      'data-plane',
      [
        { id: 'verify.ksync', ps: "Test-Path -Path '\\\\.\\pipe\\ksync'" },
        { id: 'verify.pkt0', ps: "Test-Path -Path '\\\\.\\pipe\\pkt0'" },
        { id: 'verify.vif', ps: "@(vif --list) -join ' '" },
        { id: 'verify.port', ps: '[bool](Get-NetTCPConnection -LocalPort 9091 -State Listen -ErrorAction SilentlyContinue)' },
      ],
      (facts) =>
        compare({
          ksync: [facts.get('verify.ksync'), true],
          pkt0: [facts.get('verify.pkt0'), true],
          vifPkt0: [/OS: pkt0/.test(String(facts.get('verify.vif') ?? '')), true],
          agentPort9091: [facts.get('verify.port'), true],
        }),
    ),
    check('versions', [MSI_PACKAGES_FACT], (facts) =>
      compare(Object.fromEntries(PRODUCTS.map((p) => [p, [installed(facts, p)?.version ?? null, input.contrailVersion]]))),
    ),
  ];
  if (input.testSigning) {
    resources.push(check('test-signing', TEST_SIGNING_FACTS, (facts) => compare({ Active: [testSigningState(facts).active, true] })));
  }
  return { name: 'verified', resources };
}
