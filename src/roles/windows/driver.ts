// The docker driver (CNM plugin) and then the agent, in the order they need: Docker, driver, agent.

import { setTimeout as sleep } from 'node:timers/promises';
import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import { gatherFacts } from '../facts.js';
import type { WindowsRoleInput } from '../input.js';
import { applied, type Phase } from '../phase.js';
import { compare, NO_CHANGE, type Resource } from '../resource.js';
import { ARTIFACTS, artifacts } from './artifacts.js';
import { AGENT_CONFIG, agentConfig, CNM_CONFIG, cnmConfig, type HostAdapters, hostAdaptersQuery, LOG_DIR } from './contrail-config.js';
import { driverNames } from './driver-names.js';
import { msiResource } from './msi-resource.js';
import { serviceStatus } from './queries.js';
import { HOST_NAME_FACT, routerName } from './router-name.js';
import { configFile, nssmService } from './service-resources.js';

export function serviceRunning(name: string): Resource {
  const id = `service.${name}.status`;
  return {
    name: `service/${name}/running`,
    facts: [{ id, ps: serviceStatus(name) }],
    test: (facts) => compare({ Status: [facts.get(id), 'Running'] }),
    async set({ exec, signal }) {
      return applied(exec, `Start-Service -Name ${psQuote(name)}`, `start ${name}`, { signal });
    },
  };
}

/** The driver creates the \\.\pipe\Contrail pipe once it is up: the agent must not start before it. */
function contrailPipe(timeoutMs = 30_000): Resource {
  const fact = { id: 'pipe.Contrail', ps: "Test-Path -Path '\\\\.\\pipe\\Contrail'" };
  return {
    name: 'pipe/Contrail',
    facts: [fact],
    test: (facts) => compare({ Present: [facts.get(fact.id), true] }),
    async set({ exec, signal }) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if ((await gatherFacts(exec, [fact], { label: 'the Contrail pipe', signal })).get(fact.id) === true) return NO_CHANGE;
        await sleep(500, undefined, { signal });
      }
      throw errors.GC_STILL_DIFFERENT(`the docker driver did not create \\\\.\\pipe\\Contrail within ${timeoutMs / 1000} s`);
    },
  };
}

export function cnmImage(input: WindowsRoleInput): string {
  return `${input.registry}/${driverNames(input.contrailVersion).repository}:${input.contrailVersion}`;
}

/** c-a-d contrail_cnm_windows/tasks/main.yml, in its order: MSI, config, NSSM service, start, pipe, agent config, agent. */
export function windowsDriver(input: WindowsRoleInput): Phase {
  const adapters = { id: 'host.adapters', ps: hostAdaptersQuery(input.physicalInterface, psQuote) };
  const names = driverNames(input.contrailVersion);
  return {
    name: 'driver',
    resources: [
      artifacts('cnm-plugin', cnmImage(input), [names.msi]),
      msiResource({
        product: names.product,
        file: `${ARTIFACTS}\\${names.msi}`,
        version: input.contrailVersion,
        disruptive: true,
      }),
      configFile('cnm-plugin', CNM_CONFIG, () => cnmConfig(input), names.service),
      nssmService({ name: names.service, application: names.exe, start: 'Manual', log: `${LOG_DIR}\\${names.service}-service.log` }),
      serviceRunning('docker'),
      serviceRunning(names.service),
      contrailPipe(),
      configFile(
        'agent',
        AGENT_CONFIG,
        (facts) => {
          const host = facts.get(adapters.id) as HostAdapters | null;
          const name = routerName(facts, input.domainSuffix);
          return host && name ? agentConfig(input, host, name) : undefined;
        },
        'contrail-vrouter-agent',
        [adapters, HOST_NAME_FACT],
      ),
      serviceRunning('contrail-vrouter-agent'),
    ],
  };
}
