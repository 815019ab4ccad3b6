// The rules Windows enforces on services: dependencies, disabled services, what each needs before it starts,
// dependents on stop, and the NAT network Docker makes when it first starts.

import { productCode } from './identifiers.js';
import { kubeletStartProblem } from './kubelet-sim.js';
import type { WindowsHost } from './windows-host.js';
import { AGENT_CONFIG, CNM_CONFIG, DOCKER_DAEMON_JSON, VHOST_ADAPTER } from './windows-paths.js';
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
  return undefined;
}

function startProblem(host: WindowsHost, svc: ServiceState): string | undefined {
  const exe = executableOf(svc);
  if (!/svchost\.exe/i.test(exe) && !host.fs.isFile(exe)) return 'The system cannot find the file specified.';
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
      if (!host.productOf('vrouter')) return 'The vRouter forwarding extension is not installed.';
      return host.fs.isFile(CNM_CONFIG) ? undefined : `Configuration file ${CNM_CONFIG} not found.`;
    case 'contrail-vrouter-agent':
      if (!host.fs.isFile(AGENT_CONFIG)) return `Configuration file ${AGENT_CONFIG} not found.`;
      return host.switchExists() ? undefined : `The vhost adapter '${VHOST_ADAPTER}' does not exist: start contrail-cnm-plugin first.`;
    default:
      return undefined;
  }
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
  try {
    bridgeNone = daemon !== undefined && JSON.parse(daemon).bridge === 'none';
  } catch {
    bridgeNone = false;
  }
  // Docker on Windows makes its default "nat" network (and a WinNAT instance) unless told bridge none.
  if (!bridgeNone && !host.state.hnsNetworks.some((n) => n.name === 'nat')) {
    host.state.hnsNetworks.push({ name: 'nat', type: 'NAT', id: productCode('nat', String(host.state.bootCount)).slice(1, -1) });
    if (host.isRunning('winnat') && !host.state.netNats.includes('nat')) host.state.netNats.push('nat');
  }
}
