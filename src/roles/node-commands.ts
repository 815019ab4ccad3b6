// The commands the node machine needs beyond phases: the boot id, the reboot, and the readiness check.

import type { Executor } from '../dataplane/executor.js';
import { bashQuote, psQuote } from '../dataplane/quote.js';
import { errors } from '../errors.js';

// Linux: the kernel's boot id; Windows: the last boot time (DESIGN 5, "Reboot algorithm").
const BOOT_ID = {
  linux: 'cat /proc/sys/kernel/random/boot_id',
  windows: "(Get-CimInstance -ClassName Win32_OperatingSystem).LastBootUpTime.ToString('o')",
};

export async function readBootId(exec: Executor, signal?: AbortSignal): Promise<string> {
  const r = await exec.run({ script: BOOT_ID[exec.os], label: 'boot id' }, { timeoutMs: 30_000, signal });
  const id = r.stdout.trim();
  if (r.exitCode !== 0 || id === '') throw errors.GC_FACTS_FAILED(`cannot read the boot id (exit ${r.exitCode}): ${r.stderr.trim()}`);
  return id;
}

/** Asks the node to reboot. The connection may drop before an answer: the caller treats that as success. */
export async function issueReboot(exec: Executor, signal?: AbortSignal): Promise<void> {
  const script = exec.os === 'windows' ? 'Restart-Computer -Force' : 'reboot';
  await exec.run({ script, label: 'reboot' }, { timeoutMs: 60_000, signal });
}

/** The node answers a command with what we sent: its shell works, not only its sshd. */
export async function checkReadiness(exec: Executor, nonce: string, signal?: AbortSignal): Promise<void> {
  const script = exec.os === 'windows' ? `Write-Output ${psQuote(nonce)}` : `echo ${bashQuote(nonce)}`;
  const r = await exec.run({ script, label: 'readiness' }, { timeoutMs: 30_000, signal });
  if (r.stdout.trim() !== nonce) throw new Error(`readiness: expected ${nonce}, got ${r.stdout.trim()}`);
}
