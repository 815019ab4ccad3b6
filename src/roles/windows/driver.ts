// The docker driver (CNM plugin) and then the agent, in the order they need: Docker, driver, agent.

import { setTimeout as sleep } from 'node:timers/promises';
import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import { gatherFacts } from '../facts.js';
import type { WindowsRoleInput } from '../input.js';
import { applied, type Phase } from '../phase.js';
import { compare, NO_CHANGE, type Resource } from '../resource.js';
import { ARTIFACTS, artifacts } from './artifacts.js';
import { msiResource } from './msi-resource.js';
import { serviceStatus } from './queries.js';

const ETC = 'C:\\ProgramData\\Contrail\\etc\\contrail';
export const CNM_CONFIG = `${ETC}\\contrail-cnm-plugin.conf`;
export const AGENT_CONFIG = `${ETC}\\contrail-vrouter-agent.conf`;
export const VHOST_ADAPTER = 'vEthernet (HNSTransparent)';

export function cnmConfig(input: WindowsRoleInput): string[] {
  return [
    '[DRIVER]',
    `Adapter=${input.physicalInterface}`,
    `ControllerIP=${input.controlNodes}`,
    'ControllerPort=8082',
    `VSwitchName=Layered ${input.physicalInterface}`,
    '',
    '[LOGGING]',
    'LogLevel=Info',
  ];
}

export function agentConfig(input: WindowsRoleInput): string[] {
  return [
    '[DEFAULT]',
    'platform=windows',
    `hostname=${input.node}`,
    '',
    '[CONTROL-NODE]',
    `servers=${input.controlNodes
      .split(/[ ,]+/)
      .filter(Boolean)
      .map((n) => `${n}:5269`)
      .join(' ')}`,
    '',
    '[VIRTUAL-HOST-INTERFACE]',
    `name=${VHOST_ADAPTER}`,
    `physical_interface=${input.physicalInterface}`,
  ];
}

/** A config file with these lines, CRLF as Windows programs expect; a change restarts `service` if it runs. */
function configFile(name: string, path: string, lines: string[], service: string): Resource {
  const id = `config.${name}`;
  const wanted = `${lines.join('\r\n')}\r\n`;
  return {
    name: `config/${name}`,
    facts: [
      { id, ps: `if (Test-Path -LiteralPath ${psQuote(path)}) { Get-Content -LiteralPath ${psQuote(path)} -Raw } else { $null }` },
      { id: `${id}.service`, ps: serviceStatus(service) },
    ],
    test: (facts) => compare({ Content: [facts.get(id), wanted] }),
    async set({ exec, facts, signal }) {
      const restart = facts.get(`${id}.service`) === 'Running' ? `\nRestart-Service -Name ${psQuote(service)} -Force` : '';
      return applied(
        exec,
        `Set-Content -LiteralPath ${psQuote(path)} -Value @(${lines.map(psQuote).join(', ')})${restart}`,
        `write ${name} config`,
        { signal },
      );
    },
  };
}

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
  return `${input.registry}/contrail-windows-cnm-plugin:${input.contrailVersion}`;
}

export function windowsDriver(input: WindowsRoleInput): Phase {
  return {
    name: 'driver',
    resources: [
      artifacts('cnm-plugin', cnmImage(input), ['cnm-plugin\\contrail-cnm-plugin.msi']),
      msiResource({
        product: 'Contrail Docker Driver',
        file: `${ARTIFACTS}\\cnm-plugin\\contrail-cnm-plugin.msi`,
        version: input.contrailVersion,
        disruptive: true,
      }),
      configFile('cnm-plugin', CNM_CONFIG, cnmConfig(input), 'contrail-cnm-plugin'),
      serviceRunning('docker'),
      serviceRunning('contrail-cnm-plugin'),
      contrailPipe(),
      configFile('agent', AGENT_CONFIG, agentConfig(input), 'contrail-vrouter-agent'),
      serviceRunning('contrail-vrouter-agent'),
      serviceRunning('contrail-vrouter-nodemgr'),
    ],
  };
}
