// Is a reboot already pending on the node? Read before rebooting (batch what is due) and after (it must be gone).

import type { Executor } from '../dataplane/executor.js';
import { gatherFacts, type LinuxFact } from './facts.js';
import type { FactQuery } from './resource.js';
import { isRebootPending } from './windows/parsers.js';

export const WINDOWS_PENDING_REBOOT: FactQuery[] = [
  {
    id: 'reboot.cbs',
    ps: "Test-Path -Path 'HKLM:\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Component Based Servicing\\RebootPending'",
  },
  {
    id: 'reboot.renames',
    ps: "(Get-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager' -Name 'PendingFileRenameOperations' -ErrorAction SilentlyContinue).PendingFileRenameOperations",
  },
  { id: 'reboot.features', ps: "[bool](Get-WindowsFeature | Where-Object { $_.InstallState.ToString() -eq 'InstallPending' })" },
];

/** Debian and Ubuntu's marker, written by packages that need a reboot (a new kernel). */
export const LINUX_PENDING_REBOOT: FactQuery[] = [{ id: 'reboot.required', sh: 'test -f /var/run/reboot-required' }];

export async function detectPendingReboot(exec: Executor, signal?: AbortSignal): Promise<boolean> {
  const queries = exec.os === 'windows' ? WINDOWS_PENDING_REBOOT : LINUX_PENDING_REBOOT;
  const facts = await gatherFacts(exec, queries, { label: 'pending reboot', ...(signal ? { signal } : {}) });
  if (exec.os === 'linux') return (facts.get('reboot.required') as LinuxFact).status === 0;
  return isRebootPending({
    cbsRebootPending: facts.get('reboot.cbs'),
    pendingFileRenames: facts.get('reboot.renames'),
    featureInstallPending: facts.get('reboot.features'),
  });
}
