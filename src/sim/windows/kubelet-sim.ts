// The simulated Kubernetes worker pieces: what kubelet.exe is, what it needs to start, and kubelet --version.

import type { NativeSpec } from '../shells/powershell/commands.js';
import type { WindowsHost } from './windows-host.js';
import { executableOf, type ServiceState } from './windows-state.js';

/** What the simulated kubelet.exe holds: `groundcrew-sim kubelet v1.29.4`. Anything else is not a kubelet. */
function kubeletVersionOf(content: string | undefined): string | undefined {
  return /^groundcrew-sim kubelet (v\d+\.\d+\.\d+)\s*$/.exec(content ?? '')?.[1];
}

/** The kubelet starts with its binary, its two config files, and the runtime's pipe present. */
export function kubeletStartProblem(host: WindowsHost, svc: ServiceState): string | undefined {
  if (!kubeletVersionOf(host.fs.read(executableOf(svc))))
    return 'The specified executable is not a valid application for this OS platform.';
  for (const flag of ['--config', '--bootstrap-kubeconfig']) {
    const path = new RegExp(`${flag}=(\\S+)`).exec(svc.binaryPath)?.[1];
    if (path && !host.fs.isFile(path)) return `The service terminated: ${flag}: open ${path}: The system cannot find the file specified.`;
  }
  return host.pipes().includes('containerd-containerd')
    ? undefined
    : 'The service terminated: the container runtime endpoint is not reachable.';
}

/** `& 'C:\k\kubelet.exe' --version`: runs the file it was invoked by (bare `kubelet` is not on PATH). */
export const KUBELET_NATIVE: NativeSpec<WindowsHost> = {
  names: ['kubelet'],
  run(host, argv, ctx) {
    const path = ctx.command ?? '';
    if (!/[\\/]/.test(path) || !host.fs.isFile(path))
      return {
        stdout: '',
        stderr: `${path} : The term '${path}' is not recognized as the name of a cmdlet, function, script file, or operable program.\r\n`,
        exitCode: 1,
      };
    const version = kubeletVersionOf(host.fs.read(path));
    if (!version)
      return {
        stdout: '',
        stderr: `Program '${path}' failed to run: The specified executable is not a valid application for this OS platform.\r\n`,
        exitCode: 1,
      };
    if (argv[0] === '--version') return { stdout: `Kubernetes ${version}\r\n`, exitCode: 0 };
    return { stdout: '', stderr: 'groundcrew sim: kubelet runs only as a service here (kubelet --version answers)\r\n', exitCode: 1 };
  },
};
