// A Git server over SSH on loopback, as a Git host serves deploy keys: a real OpenSSH sshd on a port of its
// own, logging in as the test's user with the one key it is given, every session forced through `git-shell`
// (git-shell(1): only git-upload-pack, git-receive-pack and git-upload-archive run). Its host key is new
// for each server; `knownHostsLine` is what an operator puts in known_hosts after checking the fingerprint.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort, untilListening } from './ports.js';

export interface GitSshd {
  port: number;
  user: string;
  /** `[127.0.0.1]:PORT ssh-ed25519 AAAA…`: the server's host key as a known_hosts line. */
  knownHostsLine: string;
  /** `ssh://USER@127.0.0.1:PORT/ABSOLUTE-PATH` */
  url(repoPath: string): string;
  /** What sshd wrote (-e: its log on stderr): accepted keys, refused ones. */
  log(): string;
  stop(): Promise<void>;
}

/** A new ed25519 key pair at `file` (and `file.pub`) made by the real ssh-keygen; returns the public key line. */
export function newKey(file: string, comment: string): string {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file]);
  return readFileSync(`${file}.pub`, 'utf8').trim();
}

export async function startGitSshd(dir: string, authorizedKey: string): Promise<GitSshd> {
  mkdirSync(dir, { recursive: true });
  // sshd's privilege separation directory, when it runs as root.
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true });
  const hostKey = join(dir, 'host_ed25519');
  const hostPublic = newKey(hostKey, 'git-server');
  const authorizedKeys = join(dir, 'authorized_keys');
  writeFileSync(authorizedKeys, `restrict ${authorizedKey}\n`);
  const port = await freePort();
  const user = userInfo().username;
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorizedKeys}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AllowUsers ${user}`,
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'StrictModes no',
      'UsePAM no',
      'LogLevel VERBOSE',
      // The client's command reaches git-shell as sshd got it; git-shell runs only git's transport programs.
      'ForceCommand /usr/bin/git-shell -c "$SSH_ORIGINAL_COMMAND"',
      '',
    ].join('\n'),
  );
  // sshd runs the forced command through the user's shell, and bash then reads ~/.bashrc: root's on these machines
  // runs `pyenv init`, which waits on pyenv's lock while another process rehashes (LAB-NOTES.md), and held a clone
  // past a test's timeout. As root, sshd gets an empty home of its own in a private mount namespace.
  const sshd = ['/usr/sbin/sshd', '-D', '-e', '-f', config];
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const child: ChildProcess =
    process.getuid?.() === 0
      ? spawn(
          'unshare',
          [
            '--mount',
            '--propagation',
            'private',
            'sh',
            '-c',
            'mount --bind "$0" "$1" && shift && exec "$@"',
            home,
            userInfo().homedir,
            ...sshd,
          ],
          { stdio: ['ignore', 'ignore', 'pipe'] },
        )
      : spawn(sshd[0] as string, sshd.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  await untilListening(port, child, () => stderr);
  const [type, key] = hostPublic.split(' ');
  return {
    port,
    user,
    knownHostsLine: `[127.0.0.1]:${port} ${type} ${key}`,
    url: (repoPath) => `ssh://${user}@127.0.0.1:${port}${repoPath}`,
    log: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    },
  };
}
