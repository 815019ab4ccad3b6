// The files a simulated Linux host's commands see: its file system, and what the kernel serves instead
// (/proc/sys as the host's sysctls, the boot id, /dev/null, each link's /sys/class/net/NAME/flags).

import type { BashShell, ShellFiles } from '../shells/bash/bash-shell.js';
import { sysfsFlags } from './ip-routes.js';
import type { LinuxHost } from './linux-host.js';

/** Files the kernel serves rather than the disk. */
function special(host: LinuxHost, path: string): string | undefined {
  if (path === '/proc/sys/kernel/random/boot_id') return `${host.state.bootId}\n`;
  if (path === '/etc/hostname') return `${host.state.hostname}\n`;
  if (path === '/dev/null') return '';
  const link = /^\/sys\/class\/net\/([^/]+)\/flags$/.exec(path)?.[1];
  if (link !== undefined) return sysfsFlags(host, link);
  if (path.startsWith('/proc/sys/')) {
    const key = path.slice('/proc/sys/'.length).replace(/\//g, '.');
    return key in host.state.sysctls ? `${host.state.sysctls[key]}\n` : undefined;
  }
  return undefined;
}

export function hostFiles(host: LinuxHost): ShellFiles {
  return {
    read: (path) => special(host, path) ?? host.fs.read(path),
    isDir: (path) => host.fs.isDir(path),
    write(path, content, append) {
      if (path === '/dev/null') return undefined;
      if (path.startsWith('/proc/sys/')) {
        const key = path.slice('/proc/sys/'.length).replace(/\//g, '.');
        if (!(key in host.state.sysctls)) return 'No such file or directory';
        setSysctl(host, key, content.trim());
        return undefined;
      }
      if (host.fs.isDir(path)) return 'Is a directory';
      const next = append ? (host.fs.read(path) ?? '') + content : content;
      if (host.fs.read(path) === next) return undefined;
      if (!host.fs.write(path, next)) return 'No such file or directory';
      host.record(`write ${path}`);
      return undefined;
    },
  };
}

export function setSysctl(host: LinuxHost, key: string, value: string): void {
  if (host.state.sysctls[key] !== value) host.record(`sysctl ${key}=${value}`);
  host.state.sysctls[key] = value;
}

/** An operand a tool reads: `-` and /dev/stdin are its standard input, anything else a file of the host. */
export function inputReader(files: ShellFiles): (shell: BashShell, path: string, stdin: string) => string | undefined {
  return (shell, path, stdin) => (path === '-' || path === '/dev/stdin' ? stdin : files.read(shell.resolve(path)));
}
