// Taking groundcrew's components off a Windows node removed from the inventory (removalPolicy: deconfigure):
// services stopped and the ones it defined deleted (the kubelet too), the overlay removed, then the MSIs
// uninstalled, driver first.

import { psQuote } from '../../dataplane/quote.js';
import { change, type Phase, setByCommand } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { DRIVER_SERVICES } from './driver-names.js';
import { msiOutcome, runMsiexec } from './msi.js';
import { REMOVAL_ORDER as PRODUCTS } from './msi-products.js';
import { installed, MSI_PACKAGES_FACT, MSI_RECORD_DIR } from './msi-resource.js';
import { windowsOverlayAbsent } from './overlay.js';

/** Services groundcrew defined itself (NSSM for Contrail's, as c-a-d does; the MSIs ship binaries only). */
const DEFINED = [...DRIVER_SERVICES, 'contrail-vrouter-agent', 'contrail-vrouter-nodemgr', 'kubelet'];
const STOPPED = ['kubelet', 'contrail-vrouter-agent', 'contrail-vrouter-nodemgr', ...DRIVER_SERVICES];

function servicesAbsent(): Resource {
  return {
    name: 'absent/services',
    facts: DEFINED.map((s) => ({ id: `absent.${s}`, ps: `[bool](Get-Service -Name ${psQuote(s)} -ErrorAction SilentlyContinue)` })),
    test: (facts) => compare(Object.fromEntries(DEFINED.map((s) => [s, [facts.get(`absent.${s}`), false]]))),
    async set({ exec, signal }) {
      // Only an absent service is expected, so only Get-Service is silenced; a stop or delete that fails ends
      // the script with its error. The explicit exit 0: powershell.exe exits 1 when the last statement left $?
      // false (about_PowerShell_exe), which an `if` over a silenced Get-Service of a deleted service does.
      const present = (s: string) => `if (Get-Service -Name ${psQuote(s)} -ErrorAction SilentlyContinue)`;
      const script = [
        "$ErrorActionPreference = 'Stop'",
        ...STOPPED.map((s) => `${present(s)} { Stop-Service -Name ${psQuote(s)} -Force }`),
        ...DEFINED.map(
          (s) =>
            `${present(s)} { $o = sc.exe delete ${psQuote(s)}; if ($LASTEXITCODE -ne 0) { throw "sc.exe delete ${s} failed ($LASTEXITCODE): $o" } }`,
        ),
        'exit 0',
      ].join('\n');
      return setByCommand(exec, script, 'stop and delete the Contrail services', { signal });
    },
  };
}

function productsAbsent(): Resource {
  return {
    name: 'absent/msi',
    facts: [MSI_PACKAGES_FACT],
    disruptive: true,
    test: (facts) => compare(Object.fromEntries(PRODUCTS.map((p) => [p, [installed(facts, p)?.version ?? null, null]]))),
    async set({ exec, facts, signal }) {
      let rebootRequested = false;
      for (const product of PRODUCTS) {
        const current = installed(facts, product);
        if (!current) continue;
        const logName = `${product.replace(/\W+/g, '-')}-uninstall-${current.version}`;
        const out = await runMsiexec(exec, 'uninstall', current.productCode, logName, signal);
        rebootRequested =
          msiOutcome('uninstall', out.exitCode, `removing ${product} ${current.version}`, out.logTail).rebootRequested || rebootRequested;
      }
      // With the products gone, so are groundcrew's records of the builds they came from (msi-resource.ts).
      const records = psQuote(MSI_RECORD_DIR);
      await change(
        exec,
        `if (Test-Path -LiteralPath ${records}) { Remove-Item -LiteralPath ${records} -Recurse -Force }`,
        'remove the MSI build records',
        {
          signal,
        },
      );
      return { changed: true, rebootRequested };
    },
  };
}

export function windowsDeconfigure(): Phase {
  return { name: 'deconfigure', resources: [servicesAbsent(), windowsOverlayAbsent(), productsAbsent()] };
}
