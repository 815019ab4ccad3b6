// What a Contrail container does when Docker starts it on a simulated Linux host, from its image and the way
// it was started. Read from Juniper/contrail-container-builder, tag v5.1: node-init (containers/node-init/
// entrypoint.sh and contrail-status-init.sh) and kernel-init (containers/vrouter/kernel-init/entrypoint.sh,
// kernel-build-init/entrypoint.sh) run once and exit; the agent loads the vrouter module that kernel-init put
// under /lib/modules and makes vhost0 (containers/vrouter/base/network-functions-vrouter-kernel), or fails.

import type { ContainerState } from './linux-host.js';

/** How Docker was asked to start a container: the parts of a compose service that decide what it can do. */
export interface ContainerSpec {
  image: string;
  privileged: boolean;
  networkMode?: string;
  restart?: string;
  /** Short-syntax volumes, `host:container[:mode]`. */
  volumes: string[];
}

export interface HostKernel {
  /** Modules installed under the host's /lib/modules (kept across reboots). */
  kernelModules: string[];
  record(change: string): void;
}

type Outcome = Pick<ContainerState, 'state' | 'exitCode'>;

const mounts = (spec: ContainerSpec, host: string, inside = host) =>
  spec.volumes.some((v) => {
    const [from, to] = v.split(':');
    return from === host && to === inside;
  });

function imageName(image: string): string {
  const last = image.slice(image.lastIndexOf('/') + 1);
  return last.includes(':') ? last.slice(0, last.indexOf(':')) : last;
}

/** kernel-init's copy of vrouter.ko into every /lib/modules/<kernel>/kernel/net/vrouter, then depmod. */
function installModule(host: HostKernel, spec: ContainerSpec, fails: (why: string) => Outcome): Outcome {
  if (!mounts(spec, '/lib/modules')) return fails('kernel-init: no /lib/modules from the host: vrouter.ko not installed');
  if (!spec.privileged) return fails('kernel-init: depmod: permission denied (not privileged)');
  if (!host.kernelModules.includes('vrouter')) {
    host.kernelModules.push('vrouter');
    host.record('kernel-init: vrouter.ko installed under /lib/modules');
  }
  return { state: 'exited', exitCode: 0 };
}

/** Runs the container's entrypoint against the host; what it changed on the host is in the host's journal. */
export function startContainer(host: HostKernel, name: string, spec: ContainerSpec): Outcome {
  const fails = (why: string): Outcome => {
    host.record(`${name}: ${why}`);
    return { state: 'exited', exitCode: 1 };
  };
  switch (imageName(spec.image)) {
    case 'contrail-node-init':
      // contrail-status-init.sh: "there is no mount /host/usr/bin from Host's /usr/bin"; sysctl-init.sh needs privileges.
      if (!mounts(spec, '/usr/bin', '/host/usr/bin')) return fails('node-init: no mount /host/usr/bin from the host');
      if (!spec.privileged) return fails('node-init: sysctl: permission denied (not privileged)');
      return { state: 'exited', exitCode: 0 };
    case 'contrail-vrouter-kernel-build-init':
      // Builds vrouter.ko with DKMS against the host's kernel headers, then installs it as kernel-init does.
      if (!mounts(spec, '/usr/src')) return fails('kernel-build-init: no /usr/src from the host (kernel headers)');
      return installModule(host, spec, fails);
    case 'contrail-vrouter-kernel-init':
      return installModule(host, spec, fails);
    case 'contrail-vrouter-agent': {
      // With restart: always, an agent whose entrypoint fails keeps restarting.
      const restarting = (why: string): Outcome => {
        host.record(`${name}: ${why}`);
        return { state: spec.restart === 'always' ? 'restarting' : 'exited', exitCode: 1 };
      };
      if (!spec.privileged || spec.networkMode !== 'host')
        return restarting('agent: FATAL: failed to init vhost0 (needs privileged and the host network)');
      if (!mounts(spec, '/lib/modules') || !host.kernelModules.includes('vrouter'))
        return restarting('agent: modprobe: FATAL: Module vrouter not found');
      return { state: 'running' };
    }
    default:
      return { state: 'running' };
  }
}
