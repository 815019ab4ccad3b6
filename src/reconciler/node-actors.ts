// The node machine's actors for one node: phases run through the roles, reboots through the executor.

import { setTimeout as sleep } from 'node:timers/promises';
import { fromPromise } from 'xstate';
import type { Executor } from '../dataplane/executor.js';
import { bashQuote, psQuote } from '../dataplane/quote.js';
import { applyPhase, type Phase, type PhaseOutcome } from '../roles/phase.js';
import type { PhaseResult, RunPhaseInput } from '../state-machines/node-machine.js';
import { ReconcilerError } from './errors.js';

export interface NodeRuntime {
  exec: Executor;
  /** The node's phases by name (from the roles, built from the same desired state as the machine's list). */
  phases: ReadonlyMap<string, Phase>;
  /** Boot-id polling after a reboot: capped exponential backoff with jitter. */
  poll?: { initialMs: number; maxMs: number };
  /** Throws (GC_GATE_*) when the phase may not run yet: a node it waits for is not verified. */
  gate?: (phase: string) => void;
  /** Waits until the node may take its data plane down (the disruption budget). */
  beforeDisruptive?: (what: string, revision: string, signal: AbortSignal) => Promise<void>;
  /** Worker slots: a phase runs only while it holds one (the cluster-wide concurrency limit). */
  workers?: { acquire(signal?: AbortSignal): Promise<void>; release(): void };
  /** What removing the node from the inventory takes off it (removalPolicy: deconfigure). */
  deconfigure?: Phase;
  /** Every phase pass, ended or failed, for the run report. */
  onPhase?: (outcome: PhaseOutcome, input: RunPhaseInput) => void;
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

/** The actors of one node's machine. */
export function nodeActors(rt: NodeRuntime) {
  return sharedNodeActors(() => rt);
}

/**
 * The actors for every node's machine at once: each finds its node's runtime by the node name in its input.
 * One provided machine then serves every node (a machine per node costs its state tree per node).
 */
export function sharedNodeActors(runtimeOf: (node: string) => NodeRuntime) {
  return {
    runPhase: fromPromise<PhaseResult, RunPhaseInput>(async ({ input, signal }) => {
      const rt = runtimeOf(input.node);
      const phase = rt.phases.get(input.phase);
      if (!phase) throw Object.assign(new Error(`no phase ${input.phase} for ${input.node}`), { code: 'GC_INTERNAL', retryable: false });
      rt.gate?.(input.phase);
      const { workers, beforeDisruptive } = rt;
      let held = false;
      if (workers) {
        await workers.acquire(signal);
        held = true;
      }
      // Waiting for the disruption budget is not work: the worker slot goes to another node meanwhile.
      const disrupt = async (what: string) => {
        if (held) workers?.release();
        held = false;
        await beforeDisruptive?.(what, input.revision, signal);
        if (workers) {
          await workers.acquire(signal);
          held = true;
        }
      };
      try {
        const outcome = await applyPhase(rt.exec, phase, { signal, dryRun: input.dryRun, beforeDisruptive: disrupt });
        rt.onPhase?.(outcome, input);
        return { inDesiredState: outcome.inDesiredState, rebootRequested: outcome.rebootRequested };
      } catch (err) {
        const outcome = (err as { outcome?: PhaseOutcome }).outcome;
        if (outcome && !signal.aborted) rt.onPhase?.(outcome, input);
        throw err;
      } finally {
        if (held) workers?.release();
      }
    }),
    readBootId: fromPromise<string, { node: string }>(({ input, signal }) => readBootId(runtimeOf(input.node).exec, signal)),
    issueReboot: fromPromise<void, { node: string; revision: string }>(async ({ input, signal }) => {
      const rt = runtimeOf(input.node);
      const { exec } = rt;
      await rt.beforeDisruptive?.('reboot', input.revision, signal);
      const script = exec.os === 'windows' ? 'Restart-Computer -Force' : 'reboot';
      await exec.run({ script, label: 'reboot' }, { timeoutMs: 60_000, signal });
    }),
    waitForNewBoot: fromPromise<string, { node: string; previousBootId: string }>(async ({ input, signal }) => {
      const { exec, poll = { initialMs: 1000, maxMs: 15_000 } } = runtimeOf(input.node);
      // The machine bounds the wait (rebootTimeout); here: poll, backing off, until the boot id is new.
      for (let attempt = 0; ; attempt++) {
        const delay = Math.min(poll.initialMs * 2 ** attempt, poll.maxMs) * (0.5 + Math.random() / 2);
        await sleep(delay, undefined, { signal });
        const id = await readBootId(exec, signal).catch(() => undefined);
        if (id !== undefined && id !== input.previousBootId) return id;
      }
    }),
    deconfigure: fromPromise<void, { node: string }>(async ({ input, signal }) => {
      const rt = runtimeOf(input.node);
      if (!rt.deconfigure) return;
      try {
        const outcome = await applyPhase(rt.exec, rt.deconfigure, { signal });
        rt.onPhase?.(outcome, { node: input.node, revision: 'removed', phase: 'deconfigure', dryRun: false, corrective: false });
      } catch (err) {
        const e = err as { code?: string; message?: string };
        throw new ReconcilerError('GC_DECONFIGURE_FAILED', `${input.node}: ${e.code ?? 'error'}: ${e.message ?? String(err)}`, err);
      }
    }),
    checkReadiness: fromPromise<void, { node: string; nonce: string }>(async ({ input, signal }) => {
      const { exec } = runtimeOf(input.node);
      // The node answers a command with what we sent: its shell works, not only its sshd.
      const script = exec.os === 'windows' ? `Write-Output ${psQuote(input.nonce)}` : `echo ${bashQuote(input.nonce)}`;
      const r = await exec.run({ script, label: 'readiness' }, { timeoutMs: 30_000, signal });
      if (r.stdout.trim() !== input.nonce) throw new Error(`readiness: expected ${input.nonce}, got ${r.stdout.trim()}`);
    }),
  };
}
