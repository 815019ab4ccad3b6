// OpenSSH's own client against lab hosts, for tests that check the lab itself (groundcrew's executor has its own tests).

import { execFile } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stderrText } from '../../src/dataplane/clixml.js';
import { encodePowerShell } from '../../src/sim/windows/windows-shell.js';
import type { Lab } from './lab.js';

export interface SshResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

export function ssh(
  lab: Lab,
  host: string,
  command: string,
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<SshResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile('ssh', [...extraArgs, ...lab.sshArgs(host), command], { encoding: 'utf8', env, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 255) : 0;
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** Runs a PowerShell script on a Windows lab host exactly as groundcrew sends it; stderr as groundcrew reads it. */
export async function powershell(lab: Lab, host: string, script: string): Promise<SshResult> {
  const r = await ssh(lab, host, encodePowerShell(`$ErrorActionPreference = 'Stop'\n${script}`));
  return { ...r, stderr: stderrText(r.stderr) };
}

/** Logs in with a password (OpenSSH reads it from SSH_ASKPASS; nothing on any command line). */
export async function sshWithPassword(lab: Lab, host: string, password: string, command: string): Promise<SshResult> {
  const askpass = join(lab.dir, `askpass-${Math.random().toString(16).slice(2)}`);
  await writeFile(askpass, `#!/bin/sh\ncat '${askpass}.secret'\n`);
  await writeFile(`${askpass}.secret`, `${password}\n`, { mode: 0o600 });
  await chmod(askpass, 0o700);
  const args = lab
    .sshArgs(host)
    .filter((a, i, all) => a !== '-i' && all[i - 1] !== '-i' && a !== 'BatchMode=yes' && !(a === '-o' && all[i + 1] === 'BatchMode=yes'));
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      'ssh',
      ['-o', 'PubkeyAuthentication=no', '-o', 'PreferredAuthentications=password', '-o', 'NumberOfPasswordPrompts=1', ...args, command],
      { encoding: 'utf8', env: { ...process.env, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: 'none' }, timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 255) : 0, stdout, stderr, ms: Date.now() - started }),
    );
  });
}
