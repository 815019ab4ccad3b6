// The node machine's actors: phases run through the roles, reboots through the roles' node commands.
// One set serves every node: each actor finds its node's runtime by the node name in its input.

import { setTimeout as sleep } from 'node:timers/promises';
import { fromPromise } from 'xstate';
import type { Executor } from '../dataplane/executor.js';
import { errors, GroundcrewError, markSent } from '../errors.js';
import { checkReadiness, issueReboot, readBootId } from '../roles/node-commands.js';
import { type Phase, type PhaseOutcome, passPhase } from '../roles/phase.js';
import type { NodePlan } from '../roles/plan.js';
import type { PhaseResult, RunPhaseInput } from '../state-machines/node-machine.js';

export interface NodeRuntime {
  exec: Executor;
  /**
   * The node's plan, built from the same role input as the machine's list of phases. A function: the
   * reconciler builds it for each phase run rather than keep one per node (about 24 KiB a node, half the
   * daemon's heap at 10,000 nodes).
   */
  plan: () => NodePlan;
  /** Boot-id polling after a reboot: capped exponential backoff with jitter. */
  poll?: { initialMs: number; maxMs: number };
  /** Throws (GC_GATE_*) when the phase (by name) may not run yet: a node it waits for is not verified. */
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

export function sharedNodeActors(runtimeOf: (node: string) => NodeRuntime) {
  return {
    runPhase: fromPromise<PhaseResult, RunPhaseInput>(async ({ input, signal }) => {
      const rt = runtimeOf(input.node);
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
        // Built once a worker is held: thousands of nodes wait for one during a converge, and a plan each
        // held while waiting was the bulk of the live heap in flight (the plan is never kept: see `plan`).
        const phase = rt.plan().phases.find((p) => p.name === input.phase);
        if (!phase) throw errors.GC_INTERNAL(`${input.node} has no phase ${input.phase} in its plan`);
        const outcome = await passPhase(rt.exec, phase, { signal, dryRun: input.dryRun, beforeDisruptive: disrupt });
        if (!signal.aborted || !outcome.failure) rt.onPhase?.(outcome, input);
        if (outcome.failure) throw outcome.failure;
        return { inDesiredState: outcome.inDesiredState, rebootRequested: outcome.rebootRequested };
      } finally {
        if (held) workers?.release();
      }
    }),
    readBootId: fromPromise<string, { node: string }>(({ input, signal }) => readBootId(runtimeOf(input.node).exec, signal)),
    issueReboot: fromPromise<void, { node: string; revision: string }>(async ({ input, signal }) => {
      const rt = runtimeOf(input.node);
      // Still waiting for the disruption budget when it failed: no reboot was asked for. The executor marks its
      // own errors (sent or not); the machine waits for a new boot only when the reboot may have gone out.
      await rt.beforeDisruptive?.('reboot', input.revision, signal).catch((err: unknown) => {
        const e = err instanceof GroundcrewError ? err : errors.GC_INTERNAL(`waiting to reboot: ${(err as Error)?.message ?? err}`, err);
        throw markSent(e, false);
      });
      await issueReboot(rt.exec, signal);
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
    deconfigure: fromPromise<void, { node: string; revision: string }>(async ({ input, signal }) => {
      const rt = runtimeOf(input.node);
      if (!rt.deconfigure) return;
      const outcome = await passPhase(rt.exec, rt.deconfigure, { signal }).catch((err: Error) => err);
      if (outcome instanceof Error || outcome.failure) {
        const e = (outcome instanceof Error ? outcome : outcome.failure) as { code?: string; message?: string };
        throw errors.GC_DECONFIGURE_FAILED(`${input.node}: ${e.code ?? 'error'}: ${e.message ?? String(e)}`, e);
      }
      rt.onPhase?.(outcome, { node: input.node, revision: input.revision, phase: 'deconfigure', dryRun: false, corrective: false });
    }),
    checkReadiness: fromPromise<void, { node: string; nonce: string }>(({ input, signal }) =>
      checkReadiness(runtimeOf(input.node).exec, input.nonce, signal),
    ),
  };
}
