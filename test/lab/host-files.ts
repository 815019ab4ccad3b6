// Everything one lab host needs on disk: keys, accounts, sshd config, the command wrapper and shims.

import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sh } from './netns.js';

export interface HostPaths {
  dir: string;
  home: string;
  authorizedKeys: string;
  passwd: string;
  shadow: string;
  bootId: string;
  hostKey: string;
  sshdConfig: string;
  pidFile: string;
  commandLog: string;
  /** Every command with when it arrived (ms since the epoch) and which caller key sent it: `ms\tcaller\tcommand\0`. */
  callLog: string;
  faults: string;
  shims: string;
  state: string;
  /** The host's own /etc/os-release (its distribution, as the model says), bind-mounted over the machine's. */
  osRelease: string;
  /** Directories of the host's own that are bind-mounted over the same path inside it. */
  mounts: { inside: string; outside: string }[];
}

/**
 * The directories a Linux lab host keeps to itself (bind-mounted in its own mount namespace). /run/groundcrew:
 * what the facts script remembers on a node (roles/linux/compose-cli-cache.ts), a tmpfs of each host's own.
 */
export const PRIVATE_DIRS = ['/etc/contrail', '/var/lib/contrail', '/var/log/contrail', '/etc/kolla', '/etc/sysctl.d', '/run/groundcrew'];

export function hostPaths(dir: string): HostPaths {
  return {
    dir,
    home: join(dir, 'home'),
    authorizedKeys: join(dir, 'home', '.ssh', 'authorized_keys'),
    passwd: join(dir, 'passwd'),
    shadow: join(dir, 'shadow'),
    bootId: join(dir, 'boot_id'),
    hostKey: join(dir, 'ssh_host_ed25519_key'),
    sshdConfig: join(dir, 'sshd_config'),
    pidFile: join(dir, 'sshd.pid'),
    commandLog: join(dir, 'commands.log'),
    callLog: join(dir, 'calls.log'),
    faults: join(dir, 'faults'),
    shims: join(dir, 'shims'),
    state: join(dir, 'state.json'),
    osRelease: join(dir, 'os-release'),
    mounts: PRIVATE_DIRS.map((inside) => ({ inside, outside: join(dir, 'fs', inside.slice(1).replace(/\//g, '-')) })),
  };
}

export async function passwordHash(password: string): Promise<string> {
  return (await sh('openssl', ['passwd', '-6', '-stdin'], `${password}\n`)).trim();
}

export interface HostFilesOptions {
  name: string;
  os: 'linux' | 'windows';
  address: string;
  clientPublicKey: string;
  passwordHash: string;
  clientBinary: string;
  socket: string;
  /** More client keys, each naming its caller in the call log (GC_CALLER, set by authorized_keys). */
  callers?: { name: string; publicKey: string }[];
  /** Linux: the host's /etc/os-release, and whether it has the standalone docker-compose (v1). */
  linux?: { osRelease: string; composeV1: boolean };
}

/** `gc-exec`, sshd's ForceCommand on Linux hosts: records the command, applies faults, runs real bash. */
function execWrapper(p: HostPaths): string {
  return `#!/bin/sh
# Lab host command wrapper: log the command (NUL-separated), apply injected faults, run it with real bash.
printf '%s\\0' "$SSH_ORIGINAL_COMMAND" >> '${p.commandLog}'
printf '%s\\t%s\\t%s\\0' "$(date +%s%3N)" "\${GC_CALLER:--}" "$SSH_ORIGINAL_COMMAND" >> '${p.callLog}'
if [ -f '${p.faults}/slow_ms' ]; then read ms < '${p.faults}/slow_ms'; sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"; fi
if [ -f '${p.faults}/drop_after_ms' ]; then
  read ms < '${p.faults}/drop_after_ms'; rm -f '${p.faults}/drop_after_ms'
  session=$PPID
  ( sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"; kill -9 "$session" ) >/dev/null 2>&1 &
fi
if [ -z "$SSH_ORIGINAL_COMMAND" ]; then exec /bin/bash -l; fi
exec /bin/bash -c "$SSH_ORIGINAL_COMMAND"
`;
}

export async function writeHostFiles(p: HostPaths, o: HostFilesOptions): Promise<void> {
  await mkdir(join(p.home, '.ssh'), { recursive: true });
  await mkdir(p.faults, { recursive: true });
  await mkdir(p.shims, { recursive: true });
  for (const m of p.mounts) await mkdir(m.outside, { recursive: true });
  const callerKeys = (o.callers ?? []).map((c) => `environment="GC_CALLER=${c.name}" ${c.publicKey.trim()}`);
  await writeFile(p.authorizedKeys, `${[o.clientPublicKey.trim(), ...callerKeys].join('\n')}\n`);
  await writeFile(p.commandLog, '');
  await writeFile(p.callLog, '');
  await writeFile(p.bootId, `${crypto.randomUUID()}\n`);

  // Accounts of this host only: root, and Administrator (uid 0) for Windows hosts, with the lab password.
  const passwd = (await readFile('/etc/passwd', 'utf8')).split('\n').filter((l) => l && !l.startsWith('root:'));
  const shadow = (await readFile('/etc/shadow', 'utf8')).split('\n').filter((l) => l && !l.startsWith('root:'));
  passwd.unshift('root:x:0:0:root:/root:/bin/bash', 'Administrator:x:0:0:Administrator:/root:/bin/bash');
  shadow.unshift(`root:${o.passwordHash}:19000:0:99999:7:::`, `Administrator:${o.passwordHash}:19000:0:99999:7:::`);
  await writeFile(p.passwd, `${passwd.join('\n')}\n`);
  await writeFile(p.shadow, `${shadow.join('\n')}\n`, { mode: 0o600 });

  await sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', o.name, '-f', p.hostKey]);
  const forceCommand = o.os === 'windows' ? `${o.clientBinary} ${o.socket} ${o.name} windows` : join(p.dir, 'gc-exec');
  await writeFile(
    p.sshdConfig,
    [
      `ListenAddress ${o.address}:22`,
      `HostKey ${p.hostKey}`,
      `AuthorizedKeysFile ${p.authorizedKeys}`,
      `PidFile ${p.pidFile}`,
      'PasswordAuthentication yes',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin yes',
      'StrictModes no',
      'UsePAM no',
      'PrintMotd no',
      'PrintLastLog no',
      'UseDNS no',
      'LogLevel ERROR',
      'PermitUserEnvironment GC_CALLER',
      `ForceCommand ${forceCommand}`,
      '',
    ].join('\n'),
  );
  if (o.os === 'linux') {
    await writeFile(join(p.dir, 'gc-exec'), execWrapper(p));
    await chmod(join(p.dir, 'gc-exec'), 0o755);
    await writeFile(p.osRelease, o.linux?.osRelease ?? '');
    // docker-compose exists only on a host whose model has it: elsewhere bash says command not found.
    for (const tool of ['docker', 'systemctl', 'reboot', ...(o.linux?.composeV1 ? ['docker-compose'] : [])]) {
      await writeFile(join(p.shims, tool), `#!/bin/sh\nexec ${o.clientBinary} ${o.socket} ${o.name} shim ${tool} "$@"\n`);
      await chmod(join(p.shims, tool), 0o755);
    }
  }
}

/** The shell line that starts a host's sshd inside its namespaces, with its private mounts. */
export function sshdLaunch(p: HostPaths, name: string, os: 'linux' | 'windows'): string {
  const bind = (from: string, to: string) => `mount --bind '${from}' '${to}'`;
  const mounts = [
    bind(p.home, '/root'),
    bind(p.passwd, '/etc/passwd'),
    bind(p.shadow, '/etc/shadow'),
    bind(p.bootId, '/proc/sys/kernel/random/boot_id'),
  ];
  if (os === 'linux') {
    mounts.push(bind(p.shims, '/usr/local/bin'), bind(p.shims, '/usr/local/sbin'), bind(p.osRelease, '/etc/os-release'));
    for (const m of p.mounts) mounts.push(bind(m.outside, m.inside));
  }
  return `hostname '${name}' && ${mounts.join(' && ')} && exec /usr/sbin/sshd -D -e -f '${p.sshdConfig}'`;
}
