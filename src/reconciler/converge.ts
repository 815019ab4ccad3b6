// Converges every node of a desired state once: one machine per node, computes after the node they wait for.
// With a snapshot store, a run that was killed resumes where each node stood. The daemon's reconciler
// (work queue, budgets, revisions from Git) will build on this; today it serves the demo and crash tests.

import { type Actor, createActor, type SnapshotFrom } from 'xstate';
import type { DesiredState } from '../inventory/desired-state.js';
import { gatesFor } from '../inventory/phases.js';
import { type Limits, nodeMachine } from '../state-machines/node-machine.js';
import { type NodeRuntime, nodeActors } from './node-actors.js';
import { planNode } from './role-inputs.js';
import type { SnapshotStore } from './snapshot-store.js';

export type Settled = 'verified' | 'stalled' | 'unreachable' | 'blocked';

export interface NodeReport {
  node: string;
  state: Settled;
  reason?: string;
  reboots: number;
}

export interface Transition {
  node: string;
  state: string;
  phase?: string;
  detail?: string;
}

export interface ConvergeOptions {
  revision: string;
  limits?: Partial<Limits>;
  onTransition?: (t: Transition) => void;
  store?: SnapshotStore;
}

type NodeSnapshot = SnapshotFrom<typeof nodeMachine>;

const SETTLED = ['verified', 'stalled', 'unreachable'];

function where(snapshot: NodeSnapshot): { state: string; phase?: string } {
  const value = snapshot.value;
  if (typeof value === 'string') return { state: value };
  const [state, sub] = Object.entries(value as Record<string, unknown>)[0] ?? ['?', undefined];
  if (state === 'converging') return { state, phase: snapshot.context.phases[snapshot.context.phaseIndex] ?? '' };
  return { state, ...(typeof sub === 'string' ? { phase: sub } : {}) };
}

const reason = (snapshot: NodeSnapshot) => {
  const e = snapshot.context.lastError;
  return e && where(snapshot).state !== 'verified' ? `${e.code}: ${e.message}` : undefined;
};

export function convergeCluster(
  state: DesiredState,
  runtimeFor: (node: string) => Omit<NodeRuntime, 'phases'>,
  options: ConvergeOptions,
): Promise<NodeReport[]> {
  const reports = new Map<string, NodeReport>();
  const waiting = new Set(state.nodes.map((n) => n.name));

  return new Promise((resolve) => {
    const report = (r: NodeReport) => {
      reports.set(r.node, r);
      if (reports.size === state.nodes.length) resolve(state.nodes.map((n) => reports.get(n.name) as NodeReport));
    };

    const startReady = () => {
      for (const node of state.nodes) {
        if (!waiting.has(node.name)) continue;
        const gates = gatesFor(node);
        const blockedBy = gates.find((g) => ['stalled', 'unreachable', 'blocked'].includes(reports.get(g.node)?.state ?? ''));
        if (blockedBy) {
          waiting.delete(node.name);
          options.onTransition?.({ node: node.name, state: 'blocked', detail: `waits for ${blockedBy.node}` });
          report({
            node: node.name,
            state: 'blocked',
            reason: `waits for ${blockedBy.node}, which is ${reports.get(blockedBy.node)?.state}`,
            reboots: 0,
          });
          continue;
        }
        if (!gates.every((g) => reports.get(g.node)?.state === 'verified')) continue;
        waiting.delete(node.name);
        start(node.name);
      }
    };

    const start = (name: string) => {
      const node = state.nodes.find((n) => n.name === name);
      if (!node) return;
      const plan = planNode(state, node);
      const machine = nodeMachine.provide({ actors: nodeActors({ ...runtimeFor(name), phases: plan.phases }) });
      const input = {
        node: name,
        revision: options.revision,
        phases: plan.names,
        mode: node.mode,
        paused: node.paused,
        limits: options.limits ?? {},
      };
      // A snapshot left by an earlier run (a crash, a restart) is resumed: restored, then told to resync.
      const restored = options.store?.load(name);
      const actor: Actor<typeof machine> = createActor(machine, restored ? { snapshot: restored as never, input } : { input });
      let last = '';
      const observe = (snapshot: NodeSnapshot) => {
        const { state: s, phase } = where(snapshot);
        const shown = `${s}:${phase ?? ''}`;
        if (shown !== last) {
          last = shown;
          const detail = reason(snapshot);
          options.onTransition?.({ node: name, state: s, ...(phase ? { phase } : {}), ...(detail ? { detail } : {}) });
        }
        if (SETTLED.includes(s) && !reports.has(name)) {
          const why = reason(snapshot);
          report({ node: name, state: s as Settled, ...(why ? { reason: why } : {}), reboots: snapshot.context.rebootsThisRevision });
          // Stop outside the subscriber: the machine is still in the middle of its transition.
          queueMicrotask(() => {
            actor.stop();
            startReady();
          });
        }
      };
      actor.subscribe((snapshot) => {
        options.store?.save(name, actor.getPersistedSnapshot());
        observe(snapshot);
      });
      actor.start();
      if (restored) {
        // Verified for this revision before the restart: it still is; the periodic resync checks it later.
        // Anything else resumes at once (a pending `after` timer does not survive a restore).
        if (!actor.getSnapshot().matches('verified')) actor.send({ type: 'resync' });
        observe(actor.getSnapshot());
      }
    };

    startReady();
  });
}
