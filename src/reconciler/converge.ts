// Converges every node of a desired state once: one machine per node, computes after the node they wait for.
// The daemon's reconciler (work queue, budgets, persistence) will build on this; today it serves the demo.

import { type Actor, createActor } from 'xstate';
import type { DesiredState } from '../inventory/desired-state.js';
import { gatesFor } from '../inventory/phases.js';
import { type Limits, nodeMachine } from '../state-machines/node-machine.js';
import { type NodeRuntime, nodeActors } from './node-actors.js';
import { planNode } from './role-inputs.js';

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

const SETTLED = ['verified', 'stalled', 'unreachable'];

function describe(value: unknown): { state: string; phase?: string } {
  if (typeof value === 'string') return { state: value };
  const [state, sub] = Object.entries(value as Record<string, unknown>)[0] ?? ['?', undefined];
  return { state, ...(typeof sub === 'string' ? { phase: sub } : {}) };
}

export async function convergeCluster(
  state: DesiredState,
  runtimeFor: (node: string) => Omit<NodeRuntime, 'phases'>,
  options: { revision: string; limits?: Partial<Limits>; onTransition?: (t: Transition) => void } = { revision: 'r1' },
): Promise<NodeReport[]> {
  const actors = new Map<string, Actor<typeof nodeMachine>>();
  const reports = new Map<string, NodeReport>();
  const waiting = new Set(state.nodes.map((n) => n.name));

  return new Promise((resolve) => {
    const finishIfDone = () => {
      if (reports.size === state.nodes.length) resolve(state.nodes.map((n) => reports.get(n.name) as NodeReport));
    };
    const startReady = () => {
      for (const node of state.nodes) {
        if (!waiting.has(node.name)) continue;
        const gates = gatesFor(node);
        const blockedBy = gates.find((g) => ['stalled', 'unreachable', 'blocked'].includes(reports.get(g.node)?.state ?? ''));
        if (blockedBy) {
          waiting.delete(node.name);
          reports.set(node.name, {
            node: node.name,
            state: 'blocked',
            reason: `waits for ${blockedBy.node}, which is ${reports.get(blockedBy.node)?.state}`,
            reboots: 0,
          });
          options.onTransition?.({ node: node.name, state: 'blocked', detail: `waits for ${blockedBy.node}` });
          continue;
        }
        if (!gates.every((g) => reports.get(g.node)?.state === 'verified')) continue;
        waiting.delete(node.name);
        start(node.name);
      }
      finishIfDone();
    };
    const start = (name: string) => {
      const node = state.nodes.find((n) => n.name === name);
      if (!node) return;
      const plan = planNode(state, node);
      const machine = nodeMachine.provide({ actors: nodeActors({ ...runtimeFor(name), phases: plan.phases }) });
      const actor = createActor(machine, {
        input: {
          node: name,
          revision: options.revision,
          phases: plan.names,
          mode: node.mode,
          paused: node.paused,
          limits: options.limits ?? {},
        },
      });
      actors.set(name, actor);
      let last = '';
      actor.subscribe((snapshot) => {
        const { state: s, phase } = describe(snapshot.value);
        const current = snapshot.matches('converging')
          ? `converging:${snapshot.context.phases[snapshot.context.phaseIndex] ?? ''}`
          : `${s}${phase ? `:${phase}` : ''}`;
        if (current !== last) {
          last = current;
          const detail =
            snapshot.context.lastError && s !== 'verified'
              ? `${snapshot.context.lastError.code}: ${snapshot.context.lastError.message}`
              : undefined;
          options.onTransition?.({
            node: name,
            state: s,
            ...(current.includes(':') ? { phase: current.split(':')[1] } : {}),
            ...(detail ? { detail } : {}),
          });
        }
        if (SETTLED.includes(s) && !reports.has(name)) {
          reports.set(name, {
            node: name,
            state: s as Settled,
            ...(snapshot.context.lastError && s !== 'verified'
              ? { reason: `${snapshot.context.lastError.code}: ${snapshot.context.lastError.message}` }
              : {}),
            reboots: snapshot.context.rebootsThisRevision,
          });
          // Stop outside the subscriber: the machine is still in the middle of its transition.
          queueMicrotask(() => {
            actor.stop();
            startReady();
          });
        }
      });
      actor.start();
    };
    startReady();
  });
}
