// The docker driver (CNM plugin) and then the agent, in the order they need: Docker, driver, agent.

import { psQuote } from '../../dataplane/quote.js';
import type { WindowsRoleInput } from '../input.js';
import { type Phase, setByCommand } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { ARTIFACTS, artifacts } from './artifacts.js';
import { cnmPluginInitialized } from './cnm-init.js';
import { AGENT_CONFIG, agentConfig, CNM_CONFIG, cnmConfig, type HostAdapters, LOG_DIR } from './contrail-config.js';
import { driverNames, otherDrivers } from './driver-names.js';
import { msiResource } from './msi-resource.js';
import { otherDriverRemoved } from './other-driver-removed.js';
import { serviceStatus } from './queries.js';
import { HOST_NAME_FACT, routerName } from './router-name.js';
import { configFile, nssmService } from './service-resources.js';
import { hostAdaptersQuery } from './vhost-adapter.js';

export function serviceRunning(name: string): Resource {
  const id = `service.${name}.status`;
  return {
    name: `service/${name}/running`,
    facts: [{ id, ps: serviceStatus(name) }],
    test: (facts) => compare({ Status: [facts.get(id), 'Running'] }),
    async set({ exec, signal }) {
      return setByCommand(exec, `Start-Service -Name ${psQuote(name)}`, `start ${name}`, { signal });
    },
  };
}

export function cnmImage(input: WindowsRoleInput): string {
  return `${input.registry}/${driverNames(input.contrailVersion).repository}:${input.contrailVersion}`;
}

/**
 * c-a-d contrail_cnm_windows/tasks/main.yml, in its order: MSI, config, NSSM service, start and pipe (as
 * contrail-windows-ci initializes the plugin: cnm-init.ts), agent config, agent. Before them, the driver of the
 * other Contrail generation taken off (other-driver-removed.ts): it would hold the switch the new one makes.
 */
export function windowsDriver(input: WindowsRoleInput): Phase {
  const adapters = { id: 'host.adapters', ps: hostAdaptersQuery(input.physicalInterface, psQuote) };
  const names = driverNames(input.contrailVersion);
  return {
    name: 'driver',
    resources: [
      ...otherDrivers(input.contrailVersion).map((old) => otherDriverRemoved(old, input.physicalInterface)),
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
      cnmPluginInitialized(input.physicalInterface, names.service),
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
