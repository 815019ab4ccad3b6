// The CNM plugin started and the vRouter extension enabled, as contrail-windows-ci's
// Initialize-CnmPluginAndExtension does it (Test/TestConfigurationUtils.ps1): an address on the data adapter
// first (Wait-RemoteInterfaceIP: a DHCP or manual IPv4 address, up to 120 s; a switch made on an adapter
// still waiting for DHCP leaves its vNIC without one), then the plugin started ("CNMPlugin automatically
// enables Extension"), running, enabled (its \\.\pipe\Contrail, as c-a-d waits for it), and the vhost
// addressed. A failed attempt is cleaned up as Clear-TestConfiguration does (the agent and the plugin
// stopped, the HNS networks on the adapter removed, the adapter's address back) and tried again, three
// times in all. On a single-NIC host the switch takes the node's own address and the session of the start
// drops with it: as c-a-d (contrail_cnm_windows: ignore_errors on the start, then wait_for_connection), that
// start is not a failure, and the waits reconnect.

import { psQuote } from '../../dataplane/quote.js';
import { errors, GroundcrewError } from '../../errors.js';
import { setByCommand } from '../phase.js';
import { compare, type FactQuery, type Facts, type Resource } from '../resource.js';
import { hnsNetworksOnAdapterRemoved } from './hns-networks.js';
import { factLines } from './parsers.js';
import { serviceStatus } from './queries.js';
import { vhostAdapter } from './vhost-adapter.js';
import { type Poll, waitForFacts } from './wait-for-fact.js';

export interface CnmInitTimeouts {
  /** An address on the data adapter, and then on the vhost (contrail-windows-ci: 120 s). */
  addressMs: number;
  /** The plugin enabled: its pipe (c-a-d waits 5 x 20 s). */
  enabledMs: number;
}

const TIMEOUTS: CnmInitTimeouts = { addressMs: 120_000, enabledMs: 100_000 };
const ATTEMPTS = 3;

/** PowerShell: the adapter's IPv4 addresses that are usable, DHCP or manual (the CI's Select-ValidNetIPInterface). */
function addresses(alias: string): string {
  return `@(Get-NetIPAddress -InterfaceAlias ${alias} -AddressFamily IPv4 -ErrorAction SilentlyContinue | Where-Object { $_.SuffixOrigin -eq 'Dhcp' -or $_.SuffixOrigin -eq 'Manual' } | ForEach-Object { $_.IPAddress })`;
}

export function cnmPluginInitialized(physical: string, service: string, timeouts: CnmInitTimeouts = TIMEOUTS): Resource {
  const status: FactQuery = { id: `cnm.${service}.status`, ps: serviceStatus(service) };
  const pipe: FactQuery = { id: 'cnm.pipe', ps: "Test-Path -Path '\\\\.\\pipe\\Contrail'" };
  const vhost: FactQuery = {
    id: 'cnm.vhostAddresses',
    ps: `$v = ${vhostAdapter(physical, psQuote)}; if ($v) { ${addresses('$v.Name')} } else { @() }`,
  };
  const data: FactQuery = { id: 'cnm.dataAddresses', ps: addresses(psQuote(physical)) };
  const facts = [status, pipe, vhost, data];
  const has = (f: Facts, q: FactQuery) => factLines(f.get(q.id)).length > 0;
  const done = (f: Facts) => f.get(status.id) === 'Running' && f.get(pipe.id) === true && has(f, vhost);

  return {
    name: `cnm-plugin/${service}/initialized`,
    facts,
    test: (f) => compare({ Status: [f.get(status.id), 'Running'], Pipe: [f.get(pipe.id), true], VhostAddressed: [has(f, vhost), true] }),
    async set({ exec, facts: before, signal }) {
      const wait = async (what: string, timeoutMs: number, poll: (f: Facts) => Poll) => {
        const said = await waitForFacts(exec, facts, poll, { what, timeoutMs, signal });
        if (said === 'wait') return `${what}: not within ${timeoutMs / 1000} s`;
        return said === 'done' ? undefined : `${what}: ${said.failed}`;
      };
      const cleanUp = async () => {
        await setByCommand(
          exec,
          [
            "Stop-Service -Name 'contrail-vrouter-agent' -Force -ErrorAction SilentlyContinue",
            `Stop-Service -Name ${psQuote(service)} -Force`,
            hnsNetworksOnAdapterRemoved(physical),
          ].join('\n'),
          `stop ${service} and remove the networks on ${physical}`,
          { signal },
        );
        return wait(`an address on ${physical} again`, timeouts.addressMs, (f) => (has(f, data) ? 'done' : 'wait'));
      };
      const attempt = async () => {
        const dataReady = await wait(`an address on ${physical} (DHCP)`, timeouts.addressMs, (f) => (has(f, data) ? 'done' : 'wait'));
        // Nothing was started: another attempt would wait for the same address again.
        if (dataReady) throw errors.GC_STILL_DIFFERENT(`${service} was not started: ${dataReady}`);
        try {
          await setByCommand(exec, `Start-Service -Name ${psQuote(service)}`, `start ${service}`, { signal });
        } catch (err) {
          // The switch took the session's address: the start went out, the waits below see what it did.
          if (!(err instanceof GroundcrewError && err.code === errors.GC_CONNECTION_LOST.code)) throw err;
        }
        const enabled = await wait(`${service} enabled (\\\\.\\pipe\\Contrail)`, timeouts.enabledMs, (f) =>
          f.get(pipe.id) === true ? 'done' : f.get(status.id) === 'Running' ? 'wait' : { failed: `${service} is ${f.get(status.id)}` },
        );
        if (enabled) return enabled;
        return wait(`an address on the vhost adapter`, timeouts.addressMs, (f) => (has(f, vhost) ? 'done' : 'wait'));
      };

      // Running but not enabled, or its vhost unaddressed (made before DHCP answered): undone first.
      if (before.get(status.id) === 'Running' && !done(before)) await cleanUp();
      const problems: string[] = [];
      for (let i = 1; i <= ATTEMPTS; i++) {
        const problem = await attempt();
        if (!problem) return { changed: true, rebootRequested: false };
        problems.push(`attempt ${i}: ${problem}`);
        const notBack = await cleanUp();
        if (notBack) problems.push(notBack);
      }
      throw errors.GC_STILL_DIFFERENT(`${service} did not enable the vRouter extension in ${ATTEMPTS} attempts (${problems.join('; ')})`);
    },
  };
}
