// What a pass would do on a node now: every phase tested against one read of its facts, nothing changed.

import type { Executor } from '../dataplane/executor.js';
import type { Limiter } from '../dataplane/limiter.js';
import type { DesiredState, NodeSpec } from '../inventory/desired-state.js';
import { testPhases } from '../roles/phase.js';
import { planNode } from '../roles/plan.js';
import { type RoleEnvironment, roleInput } from './role-input.js';

export interface ObservedPlan {
  node: string;
  phases: { phase: string; wouldRun: boolean; resources: { resource: string; differing: string[] }[]; error?: string }[];
  error?: string;
}

/** Phases after one that differs may read facts that are not there yet: they show as differing too. */
export async function observePlan(state: DesiredState, spec: NodeSpec, exec: Executor, env: RoleEnvironment = {}): Promise<ObservedPlan> {
  const plan = planNode(roleInput(state, spec, env));
  try {
    const tests = await testPhases(exec, plan.phases);
    return {
      node: spec.name,
      phases: tests.map((t) => {
        const differing = [...t.results].filter(([, r]) => !r.inDesiredState);
        return {
          phase: t.phase,
          wouldRun: differing.length > 0,
          resources: differing.map(([resource, r]) => ({ resource, differing: r.differingProperties })),
        };
      }),
    };
  } catch (err) {
    return { node: spec.name, phases: [], error: `cannot read the node: ${(err as Error).message}` };
  }
}

/** Each named node's plan, under the worker limit; a node without a machine of this revision says so. */
export function observePlans(
  names: readonly string[],
  machine: (name: string) => { spec: NodeSpec; exec: Executor } | undefined,
  state: DesiredState,
  workers: Limiter,
  env: RoleEnvironment = {},
): Promise<ObservedPlan[]> {
  return Promise.all(
    names.map(async (name): Promise<ObservedPlan> => {
      const found = machine(name);
      if (!found) return { node: name, phases: [], error: 'not in the revision in force' };
      await workers.acquire();
      try {
        return await observePlan(state, found.spec, found.exec, env);
      } finally {
        workers.release();
      }
    }),
  );
}
