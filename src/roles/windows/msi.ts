// Installing and removing MSIs on Windows nodes: exit codes turned into results and errors.

import type { Executor } from '../../dataplane/executor.js';
import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import { changeLast } from '../phase.js';

export const MSI_LOG_DIR = 'C:\\ProgramData\\Contrail\\var\\log\\msi';

/** Windows Installer exit codes the roles act on (https://learn.microsoft.com/windows/win32/msi/error-codes). */
export const MSI_EXIT = {
  SUCCESS: 0,
  UNKNOWN_PRODUCT: 1605,
  BUSY: 1618,
  INSTALL_FAILURE: 1603,
  REBOOT_INITIATED: 1641,
  REBOOT_REQUIRED: 3010,
} as const;

export interface MsiOutcome {
  rebootRequested: boolean;
}

/** What an exit code means; `action` is install or uninstall, `logTail` the last lines of the MSI log. */
export function msiOutcome(action: 'install' | 'uninstall', exitCode: number, what: string, logTail: string): MsiOutcome {
  switch (exitCode) {
    case MSI_EXIT.SUCCESS:
      return { rebootRequested: false };
    case MSI_EXIT.REBOOT_REQUIRED:
    case MSI_EXIT.REBOOT_INITIATED:
      return { rebootRequested: true };
    case MSI_EXIT.UNKNOWN_PRODUCT:
      if (action === 'uninstall') return { rebootRequested: false };
      break;
    case MSI_EXIT.BUSY:
      throw errors.GC_MSI_BUSY(`${what}: another installation is in progress on the node (msiexec 1618); will retry`);
  }
  throw errors.GC_MSI_FAILED(`${what}: msiexec ${action} failed with ${exitCode}; the MSI log ends:\n${logTail.trim()}`);
}

/**
 * Runs msiexec (waiting for it, which `& msiexec` would not) and returns its exit code and log tail. `then`, a
 * script run in the same command when the install succeeded (0, 3010, 1641), makes this the set's last command
 * (changeLast: the phase's facts are read in it too).
 */
export async function runMsiexec(
  exec: Executor,
  action: 'install' | 'uninstall',
  target: string,
  logName: string,
  signal?: AbortSignal,
  then?: string,
): Promise<{ exitCode: number; logTail: string }> {
  const log = `${MSI_LOG_DIR}\\${logName}.log`;
  const succeeded = [MSI_EXIT.SUCCESS, MSI_EXIT.REBOOT_REQUIRED, MSI_EXIT.REBOOT_INITIATED].join(', ');
  const script = [
    `New-Item -ItemType Directory -Path ${psQuote(MSI_LOG_DIR)} -Force | Out-Null`,
    `$p = Start-Process -FilePath 'msiexec.exe' -ArgumentList @(${psQuote(action === 'install' ? '/i' : '/x')}, ${psQuote(target)}, '/qn', '/norestart', '/l*v', ${psQuote(log)}) -Wait -PassThru`,
    `$tail = ''`,
    `if (Test-Path -LiteralPath ${psQuote(log)}) { $tail = (Get-Content -LiteralPath ${psQuote(log)} -Tail 8) -join "\`n" }`,
    ...(then ? [`if (@(${succeeded}) -contains $p.ExitCode) {`, then, '}'] : []),
    `[pscustomobject]@{ exitCode = $p.ExitCode; log = $tail } | ConvertTo-Json -Compress`,
  ].join('\n');
  const label = `msiexec ${action} ${logName}`;
  let stdout: string;
  if (then) stdout = await changeLast(exec, script, label, { timeoutMs: 30 * 60_000, ...(signal ? { signal } : {}) });
  else {
    const r = await exec.run({ script, label }, { timeoutMs: 30 * 60_000, signal });
    if (r.exitCode !== 0) throw errors.GC_SET_FAILED(`${label} could not run: ${r.stderr.trim().split(/\r?\n/)[0]}`);
    stdout = r.stdout;
  }
  const parsed = JSON.parse(stdout) as { exitCode: number; log: string };
  return { exitCode: parsed.exitCode, logTail: parsed.log };
}
