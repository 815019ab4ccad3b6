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

/** How a Windows host's sessions reach real pwsh (real-pwsh-env.ts): its environment and how pwsh starts. */
export interface WindowsPwsh {
  /** The environment, with `@WORK@` and `@SCRATCH@` where each session's own directories go. */
  env: Record<string, string>;
  /** The program and leading arguments that start pwsh (dotnet pwsh.dll). */
  command: string[];
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
  /** Windows: real pwsh for the account (else the TypeScript interpreter answers). */
  windows?: WindowsPwsh;
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

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * `gc-windows-exec`, sshd's ForceCommand on Windows hosts: logs the command (the lab decodes -EncodedCommand and
 * names the caller), applies injected faults, and runs it in real pwsh as Windows OpenSSH runs a command with
 * DefaultShell = PowerShell (`pwsh -c <command line>`). groundcrew's `powershell.exe ... -EncodedCommand` line
 * goes straight to one pwsh with the same arguments (the outer shell would only start the inner one: one pwsh
 * start per command, not two). -NoProfile is dropped: the profile is what loads the host's Windows module, which a
 * Windows install has whatever the flags. Each session gets an empty working directory and HOME; a script that
 * writes there (a .NET static such as [IO.File]::WriteAllText on a Windows path, which never reaches the
 * simulated host) fails with the files named. Output lines end CRLF, as a Windows console program's do (pwsh on
 * Linux ends them LF). Afterwards the lab hears of the exit (a requested reboot).
 */
function windowsExecWrapper(p: HostPaths, o: HostFilesOptions, pwsh: WindowsPwsh): string {
  const client = `${shQuote(o.clientBinary)} ${shQuote(o.socket)} ${shQuote(o.name)}`;
  const exports = Object.entries(pwsh.env).map(([k, v]) => {
    const value = v
      .replace(/[\\"$`]/g, '\\$&')
      .replace('@WORK@', '$work')
      .replace('@SCRATCH@', '$scratch');
    return `export ${k}="${value}"`;
  });
  return `#!/bin/sh
# Lab Windows host: log, faults, then real pwsh (test/lab/host-files.ts says why each step is there).
${client} windows-log || exit 255
if [ -f '${p.faults}/slow_ms' ]; then read ms < '${p.faults}/slow_ms'; sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"; fi
if [ -f '${p.faults}/drop_after_ms' ]; then
  read ms < '${p.faults}/drop_after_ms'; rm -f '${p.faults}/drop_after_ms'
  session=$PPID
  ( sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"; kill -9 "$session" ) >/dev/null 2>&1 &
fi
work=$(/bin/mktemp -d '${p.dir}/work.XXXXXX') && scratch=$(/bin/mktemp -d '${p.dir}/scratch.XXXXXX') || exit 255
${exports.join('\n')}
cd "$work" || exit 255
set -f
set -- $SSH_ORIGINAL_COMMAND
{
  case "$1" in
    powershell.exe|powershell|PowerShell.exe|POWERSHELL.EXE)
      shift
      for arg in "$@"; do shift; case "$arg" in -NoProfile|-noprofile|-nop) ;; *) set -- "$@" "$arg" ;; esac; done
      ${pwsh.command.map(shQuote).join(' ')} -NoLogo "$@" ;;
    *) ${pwsh.command.map(shQuote).join(' ')} -NoLogo -NonInteractive -Command "$SSH_ORIGINAL_COMMAND" ;;
  esac
  echo $? > "$scratch/rc"
} | /bin/sed -u 's/\\r*$/\\r/'
rc=$(/bin/cat "$scratch/rc")
strays=$(/bin/ls -A "$work")
if [ -n "$strays" ]; then
  printf "groundcrew lab: the script wrote %s into pwsh's Linux working directory: a .NET static ([IO.File]::...) given a Windows path, which never reaches the simulated host\\n" "$strays" >&2
  [ "$rc" -eq 0 ] && rc=1
fi
/bin/rm -rf "$work" "$scratch"
${client} windows-exit
exit $rc
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
  const forceCommand =
    o.os === 'linux'
      ? join(p.dir, 'gc-exec')
      : o.windows
        ? join(p.dir, 'gc-windows-exec')
        : `${o.clientBinary} ${o.socket} ${o.name} windows`;
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
  if (o.os === 'windows') {
    // Without real pwsh the TypeScript interpreter answers the whole command line (the lab's older engine).
    if (o.windows) {
      await writeFile(join(p.dir, 'gc-windows-exec'), windowsExecWrapper(p, o, o.windows));
      await chmod(join(p.dir, 'gc-windows-exec'), 0o755);
    }
  }
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
