// The node machine's actors for one node: phases run through the roles, reboots through the executor.

import { setTimeout as sleep } from 'node:timers/promises';
import { fromPromise } from 'xstate';
import type { Executor } from '../dataplane/executor.js';
import { bashQuote, psQuote } from '../dataplane/quote.js';
import { applyPhase, type Phase } from '../roles/phase.js';
import type { PhaseResult } from '../state-machines/node-machine.js';

export interface NodeRuntime {
  exec: Executor;
  /** The node's phases by name (from the roles, built from the same desired state as the machine's list). */
  phases: ReadonlyMap<string, Phase>;
  /** Boot-id polling after a reboot: capped exponential backoff with jitter. */
  poll?: { initialMs: number; maxMs: number };
}

const BOOT_ID = {
  linux: 'cat /proc/sys/kernel/random/boot_id',
  windows: "(Get-CimInstance -ClassName Win32_OperatingSystem).LastBootUpTime.ToString('o')",
};

export async function readBootId(exec: Executor, signal?: AbortSignal): Promise<string> {
  const r = await exec.run({ script: BOOT_ID[exec.os], label: 'boot id' }, { timeoutMs: 30_000, ...(signal ? { signal } : {}) });
  const id = r.stdout.trim();
  if (r.exitCode !== 0 || id === '')
    throw Object.assign(new Error(`cannot read the boot id (exit ${r.exitCode}): ${r.stderr.trim()}`), {
      code: 'GC_FACTS_FAILED',
      retryable: true,
    });
  return id;
}

export function nodeActors(rt: NodeRuntime) {
  const { exec } = rt;
  const poll = rt.poll ?? { initialMs: 1000, maxMs: 15_000 };
  return {
    runPhase: fromPromise<PhaseResult, { node: string; revision: string; phase: string; dryRun: boolean }>(async ({ input, signal }) => {
      const phase = rt.phases.get(input.phase);
      if (!phase) throw Object.assign(new Error(`no phase ${input.phase} for ${input.node}`), { code: 'GC_INTERNAL', retryable: false });
      const outcome = await applyPhase(exec, phase, { signal, dryRun: input.dryRun });
      return { inDesiredState: outcome.inDesiredState, rebootRequested: outcome.rebootRequested };
    }),
    readBootId: fromPromise<string, { node: string }>(({ signal }) => readBootId(exec, signal)),
    issueReboot: fromPromise<void, { node: string }>(async ({ signal }) => {
      const script = exec.os === 'windows' ? 'Restart-Computer -Force' : 'reboot';
      await exec.run({ script, label: 'reboot' }, { timeoutMs: 60_000, signal });
    }),
    waitForNewBoot: fromPromise<string, { node: string; previousBootId: string }>(async ({ input, signal }) => {
      // The machine bounds the wait (rebootTimeout); here: poll, backing off, until the boot id is new.
      for (let attempt = 0; ; attempt++) {
        const delay = Math.min(poll.initialMs * 2 ** attempt, poll.maxMs) * (0.5 + Math.random() / 2);
        await sleep(delay, undefined, { signal });
        const id = await readBootId(exec, signal).catch(() => undefined);
        if (id !== undefined && id !== input.previousBootId) return id;
      }
    }),
    checkReadiness: fromPromise<void, { node: string; nonce: string }>(async ({ input, signal }) => {
      // The node answers a command with what we sent: its shell works, not only its sshd.
      const script = exec.os === 'windows' ? `Write-Output ${psQuote(input.nonce)}` : `echo ${bashQuote(input.nonce)}`;
      const r = await exec.run({ script, label: 'readiness' }, { timeoutMs: 30_000, signal });
      if (r.stdout.trim() !== input.nonce) throw new Error(`readiness: expected ${input.nonce}, got ${r.stdout.trim()}`);
    }),
  };
}
