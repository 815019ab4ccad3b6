// What a node's machine runs on: its executor (commands wait until its snapshot is durable), its plan built on
// demand, its gates, the disruption budget and the worker slots, and where a phase's outcome is recorded.

import { FencedExecutor } from '../dataplane/fenced-executor.js';
import type { NodeSpec } from '../inventory/desired-state.js';
import { linuxDeconfigure } from '../roles/linux/deconfigure.js';
import type { Phase } from '../roles/phase.js';
import { planNode } from '../roles/plan.js';
import { windowsDeconfigure } from '../roles/windows/deconfigure.js';
import type { Fence } from './coordination.js';
import { checkGates } from './gates.js';
import type { NodeRuntime } from './node-actors.js';
import type { NodeAccess, NodeRecord } from './node-record.js';
import type { NodeScope } from './node-scope.js';
import { recordPhase } from './node-status.js';
import type { Rollout } from './rollout.js';
import type { RunWindow } from './run-window.js';
import type { StatusStore } from './status-store.js';

/** What `removalPolicy: deconfigure` takes off a node: the same for every node of an OS. */
const WINDOWS_DECONFIGURE: Phase = windowsDeconfigure();
const LINUX_DECONFIGURE: Phase = linuxDeconfigure();

export interface RuntimeDeps {
  scope: NodeScope;
  status: StatusStore;
  entries: ReadonlyMap<string, NodeRecord>;
  window: RunWindow;
  rollout: Rollout;
  workers: NonNullable<NodeRuntime['workers']>;
}

/**
 * How `spec`'s node is reached: every command passes the fence first (coordination.ts), the one place it is
 * checked before a command; a refusal is a command never sent.
 */
export function fencedAccess(spec: NodeSpec, access: (node: NodeSpec) => NodeAccess, fence: Fence): NodeAccess {
  const transport = access(spec);
  return { ...transport, exec: new FencedExecutor(transport.exec, () => fence.guard(spec.name)) };
}

/**
 * The runtime of the entry's node, built when its actor first asks: a rested node holds none (about 2 KiB of
 * closures a node; measured in a settled heap at 10,000 nodes, docs/BENCHMARKS.md).
 */
export function nodeRuntime(entry: NodeRecord, deps: RuntimeDeps): NodeRuntime {
  const { name, log } = entry;
  return {
    ...entry.access,
    // The plan: built for each phase run, never kept.
    plan: () => planNode(entry.desired.role),
    deconfigure: entry.desired.spec.os === 'windows' ? WINDOWS_DECONFIGURE : LINUX_DECONFIGURE,
    gate: (phase) => {
      const gates = entry.desired.phaseGates.get(phase) ?? [];
      // A node it waits for that waits for a place to run goes first (else the window could fill with its dependents).
      for (const gate of gates) deps.window.startNow(gate.node);
      checkGates(gates, deps.entries, deps.scope);
    },
    beforeDisruptive: async (what, rev, signal) => {
      await deps.rollout.acquire(name, rev, signal);
      log.info({ revision: rev, what }, 'takes its data plane down');
    },
    workers: deps.workers,
    onPhase: (outcome, input) => recordPhase(deps.status, deps.entries.get(name), name, outcome, input),
  };
}
