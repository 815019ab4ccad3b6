// The rules Windows enforces on services: dependencies, disabled services, what each needs before it starts,
// dependents on stop, and the NAT network Docker makes when it first starts.

import { cnmKeystoneProblem } from './cnm-keystone-client.js';
import { productCode } from './identifiers.js';
import { nssmApplication, nssmParameters } from './installer-natives.js';
import { kubeletStartProblem } from './kubelet-sim.js';
import type { WindowsHost } from './windows-host.js';
import { AGENT_CONFIG, CNM_CONFIG, DOCKER_DAEMON_JSON, NODEMGR_CONFIG } from './windows-paths.js';
import { executableOf, type ServiceState } from './windows-state.js';

/** Starts a service and what it depends on; undefined on success, else the reason Windows gives. */
export function startService(host: WindowsHost, name: string): string | undefined {
  const svc = host.service(name);
  if (!svc) return `Cannot find any service with service name '${name}'.`;
  if (svc.status === 'Running') return undefined;
  if (svc.startType === 'Disabled')
    return `Service '${svc.displayName} (${svc.name})' cannot be started due to the following error: Cannot start service ${svc.name} on computer '.'. The service cannot be started, either because it is disabled or because it has no enabled devices associated with it.`;
  for (const dependency of svc.dependsOn) {
    const failed = startService(host, dependency);
    if (failed)
      return `Service '${svc.displayName} (${svc.name})' cannot be started due to the following error: Cannot start service ${svc.name} on computer '.'. The dependency service or group failed to start.`;
  }
  const problem = startProblem(host, svc);
  if (problem)
    return `Service '${svc.displayName} (${svc.name})' cannot be started due to the following error: Cannot start service ${svc.name} on computer '.'. ${problem}`;
  svc.status = 'Running';
  host.record(`start-service ${svc.name}`);
  if (svc.name.toLowerCase() === 'docker') onDockerStarted(host);
  if (['contrail-cnm-plugin', 'contrail-docker-driver'].includes(svc.name.toLowerCase())) onCnmPluginStarted(host, svc);
  return undefined;
}

/**
 * The CNM plugin enables the extension by making the Contrail switch on its adapter, or (cnmEnableFailures)
 * fails to and exits. The vNIC takes the adapter's address as it is then: none while DHCP has not answered.
 * Made on the adapter that carries the node's own address, the switch takes the SSH session down with it.
 */
function onCnmPluginStarted(host: WindowsHost, svc: ServiceState): void {
  const failures = host.state.faults.cnmEnableFailures ?? 0;
  if (failures > 0) {
    host.state.faults.cnmEnableFailures = failures - 1;
    svc.status = 'Stopped';
    host.record(`exited ${svc.name}: the extension was not enabled`);
    return;
  }
  // A new switch each time: its vNIC is a new interface, with a new ifName (host.adapters).
  host.state.switchesMade = (host.state.switchesMade ?? 0) + 1;
  const nic = host.nic(host.contrailAdapter());
  host.state.vhostUnaddressed = nic?.origin === 'Dhcp' && !host.dhcpLeased();
  // The management adapter (the first) carries the node's own address, the one the session came in by.
  if (nic && nic.name === host.nics()[0]?.name) host.connectionDropRequested = true;
}

function startProblem(host: WindowsHost, svc: ServiceState): string | undefined {
  const exe = executableOf(svc);
  if (!/svchost\.exe/i.test(exe) && !host.fs.isFile(exe)) return 'The system cannot find the file specified.';
  // An NSSM service starts nssm.exe, which starts its Application: that must exist too.
  const application = nssmApplication(host, svc.name);
  if (application !== undefined && !host.fs.isFile(application))
    return `The service did not respond to the start or control request in a timely fashion (nssm: ${application} not found).`;
  // powershell.exe -File SCRIPT (c-a-d runs the agent so, through its entrypoint.ps1): the script runs as the
  // service starts; failing, it ends the service.
  if (application !== undefined && /(^|\\)powershell\.exe$/i.test(application)) {
    const run = host.runProcess;
    if (!run) return 'groundcrew sim: no shell drives this host, so a service cannot run powershell.exe';
    const ran = run(`${application} ${nssmParameters(host, svc.name) ?? ''}`);
    if (ran.exitCode !== 0)
      return `The service terminated (powershell.exe exited with ${ran.exitCode}: ${ran.stderr.trim().split(/\r?\n/)[0] ?? ''}).`;
  }
  switch (svc.name.toLowerCase()) {
    case 'containerd':
      return host.state.features.Containers === 'Installed' ? undefined : 'The Containers feature is not enabled.';
    case 'kubelet':
      return kubeletStartProblem(host, svc);
    case 'docker':
      return host.state.features.Containers === 'Installed'
        ? undefined
        : 'The Containers feature is not enabled (hcsshim::GetComputeSystems: the service has not been started).';
    case 'contrail-cnm-plugin':
    case 'contrail-docker-driver':
      return cnmPluginProblem(host);
    case 'contrail-vrouter-agent':
      return agentProblem(host);
    case 'contrail-vrouter-nodemgr':
      return host.fs.isFile(NODEMGR_CONFIG) ? undefined : `Configuration file ${NODEMGR_CONFIG} not found.`;
    default:
      return undefined;
  }
}

/** The CNM plugin reads [DRIVER] Adapter (an adapter that exists) and [AUTH] AuthMethod (c-a-d's template). */
function cnmPluginProblem(host: WindowsHost): string | undefined {
  if (!host.productOf('vrouter')) return 'The vRouter forwarding extension is not installed.';
  // The plugin registers with Docker and makes its networks through it (c-a-d starts Docker first).
  if (!host.isRunning('docker')) return 'Docker is not running: the plugin cannot register with it.';
  const config = host.fs.read(CNM_CONFIG);
  if (config === undefined) return `Configuration file ${CNM_CONFIG} not found.`;
  const adapter = host.contrailAdapter();
  if (!adapter || !host.adapters().some((a) => a.name.toLowerCase() === adapter.toLowerCase()))
    return `[DRIVER] Adapter '${adapter ?? ''}' is not a network adapter of this host.`;
  const auth = /^\s*AuthMethod\s*=\s*(\S+)/im.exec(config)?.[1];
  if (auth !== 'keystone' && auth !== 'noauth') return '[AUTH] AuthMethod must be keystone or noauth.';
  if (auth === 'keystone' && !/^\s*Os_password\s*=\s*\S/im.test(config)) return '[KEYSTONE] has no Os_password.';
  return auth === 'keystone' ? cnmKeystoneProblem(config, host.network) : undefined;
}

/** The agent needs the vhost adapter, and its config's vhost ip=, physical_interface= and name= (the adapters' ifNames). */
function agentProblem(host: WindowsHost): string | undefined {
  const config = host.fs.read(AGENT_CONFIG);
  if (config === undefined) return `Configuration file ${AGENT_CONFIG} not found.`;
  const vhostName = host.vhostAdapter();
  if (!vhostName) return 'The vhost adapter does not exist: start contrail-cnm-plugin first.';
  const physical = host.adapters().find((a) => a.name.toLowerCase() === host.contrailAdapter()?.toLowerCase())?.ifName;
  const vhostIfName = host.adapters().find((a) => a.name === vhostName)?.ifName;
  const vhost = host.adapterAddresses().find((a) => a.interfaceAlias === vhostName);
  if (!new RegExp(`^physical_interface=${physical}\\s*$`, 'm').test(config))
    return `[VIRTUAL-HOST-INTERFACE] physical_interface is not ${physical}, the data adapter's ifName.`;
  if (!vhost || !new RegExp(`^ip=${vhost.ipAddress.replace(/\./g, '\\.')}/${vhost.prefixLength}\\s*$`, 'm').test(config))
    return "[VIRTUAL-HOST-INTERFACE] ip= is not the vhost adapter's address.";
  // The vhost's ifName, which the agent's entrypoint.ps1 (contrail-controller) writes into name= at each start.
  if (!new RegExp(`^name=${vhostIfName}\\s*$`, 'm').test(config))
    return `[VIRTUAL-HOST-INTERFACE] name is not ${vhostIfName}, the ifName of ${vhostName}.`;
  return undefined;
}

/** Stops a service; with dependents running, only with force (which stops them too). */
export function stopService(host: WindowsHost, name: string, force: boolean): string | undefined {
  const svc = host.service(name);
  if (!svc) return `Cannot find any service with service name '${name}'.`;
  const dependents = Object.values(host.state.services).filter(
    (s) => s.status === 'Running' && s.dependsOn.some((d) => d.toLowerCase() === svc.name.toLowerCase()),
  );
  if (dependents.length > 0 && !force)
    return `Cannot stop service '${svc.displayName} (${svc.name})' because it has dependent services. It can only be stopped if the Force flag is set.`;
  for (const d of dependents) stopService(host, d.name, true);
  if (svc.status === 'Running') {
    svc.status = 'Stopped';
    host.record(`stop-service ${svc.name}`);
  }
  return undefined;
}

function onDockerStarted(host: WindowsHost): void {
  const daemon = host.fs.read(DOCKER_DAEMON_JSON);
  let bridgeNone = false;
  let insecure: unknown = [];
  try {
    const parsed = daemon === undefined ? {} : JSON.parse(daemon);
    bridgeNone = parsed.bridge === 'none';
    insecure = parsed['insecure-registries'] ?? [];
  } catch {
    bridgeNone = false;
  }
  // dockerd reads daemon.json once, at its start: a later edit counts only after a restart.
  if (host.state.docker) host.state.docker.insecureRegistries = Array.isArray(insecure) ? insecure.map(String) : [];
  // Docker on Windows makes its default "nat" network (and a WinNAT instance) unless told bridge none.
  if (!bridgeNone && !host.state.hnsNetworks.some((n) => n.name === 'nat')) {
    host.state.hnsNetworks.push({
      name: 'nat',
      type: 'NAT',
      driver: 'nat',
      id: productCode('nat', String(host.state.bootCount)).slice(1, -1),
    });
    if (host.isRunning('winnat') && !host.state.netNats.includes('nat')) host.state.netNats.push('nat');
  }
}
