// The driver of another Contrail version taken off before this version's is installed: across 5.0 and 5.1 the
// driver changed its name (driver-names.ts), so an upgrade or a downgrade would leave the old one installed and
// running, holding the Contrail switch and the data adapter's address; the new plugin would then wait for that
// address for ever (cnm-init.ts). c-a-d has no upgrade path (its roles install onto clean hosts); this follows
// contrail-windows-ci's own teardown: Clear-TestConfiguration (the agent and the plugin stopped, the HNS networks
// on the adapter removed: Disable-VRouterExtension) and Clear-ComputeNode.ps1 (the products removed by name,
// 'Contrail Docker Driver' among them).

import { psQuote } from '../../dataplane/quote.js';
import { change, setByCommand } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import type { DriverNames } from './driver-names.js';
import { hnsNetworksOnAdapterRemoved } from './hns-networks.js';
import { msiOutcome, runMsiexec } from './msi.js';
import { buildRecordPath, installed, MSI_PACKAGES_FACT } from './msi-resource.js';

export function otherDriverRemoved(old: DriverNames, physical: string): Resource {
  const present = {
    id: `driver.${old.service}.present`,
    ps: `[bool](Get-Service -Name ${psQuote(old.service)} -ErrorAction SilentlyContinue)`,
  };
  return {
    name: `driver/${old.service}/absent`,
    facts: [present, MSI_PACKAGES_FACT],
    // The vSwitch goes with it: the node's data plane is down until the new plugin makes it again.
    disruptive: true,
    test: (facts) => compare({ Service: [facts.get(present.id), false], Product: [installed(facts, old.product)?.name ?? null, null] }),
    async set({ exec, facts, signal }) {
      if (facts.get(present.id) === true) {
        const service = psQuote(old.service);
        // sc.exe's own exit code says whether the delete worked; the explicit exit 0 keeps a silenced
        // Get-Service from leaving powershell.exe's exit at 1 (about_PowerShell_exe).
        const script = [
          "$ErrorActionPreference = 'Stop'",
          "Stop-Service -Name 'contrail-vrouter-agent' -Force -ErrorAction SilentlyContinue",
          `Stop-Service -Name ${service} -Force`,
          hnsNetworksOnAdapterRemoved(physical),
          `$o = sc.exe delete ${service}; if ($LASTEXITCODE -ne 0) { throw "sc.exe delete ${old.service} failed ($LASTEXITCODE): $o" }`,
          'exit 0',
        ].join('\n');
        await setByCommand(exec, script, `stop and delete ${old.service}`, { signal });
      }
      const product = installed(facts, old.product);
      if (!product) return { changed: true, rebootRequested: false };
      const logName = `${old.product.replace(/\W+/g, '-')}-uninstall`;
      const out = await runMsiexec(exec, 'uninstall', product.productCode, logName, signal);
      const { rebootRequested } = msiOutcome('uninstall', out.exitCode, `removing ${old.product}`, out.logTail);
      // Its build record goes with it (msi-resource.ts): a later install by hand is not this build.
      const record = psQuote(buildRecordPath(old.product));
      await change(
        exec,
        `if (Test-Path -LiteralPath ${record}) { Remove-Item -LiteralPath ${record} -Force }`,
        `forget ${old.product}'s build`,
        {
          signal,
        },
      );
      return { changed: true, rebootRequested };
    },
  };
}
