// `groundcrew plan`: per node, the phases it needs and why; as text for people and as stable JSON.

import type { DesiredState, NodeSpec } from '../inventory/desired-state.js';
import type { Diagnostic } from '../inventory/diagnostic.js';
import { formatDiagnostic } from '../inventory/diagnostic.js';
import type { Os } from '../os.js';
import { roleInput } from '../reconciler/role-input.js';
import { type Gate, planGates, planNode, planSteps } from '../roles/plan.js';

/** Bumped on any change a consumer could notice; documented in docs/plan-json.md. */
export const PLAN_SCHEMA_VERSION = 1;

export interface NodePlan {
  name: string;
  os: Os;
  provider: NodeSpec['provider'];
  address: string;
  hostname: string;
  roles: string[];
  rolesDefaulted: boolean;
  mode: NodeSpec['mode'];
  paused: boolean;
  desiredVersions: NodeSpec['versions'];
  registry: string;
  phases: { phase: string; reason: string }[];
  gates: Gate[];
}

export interface Plan {
  schemaVersion: number;
  inventory: string;
  nodes: NodePlan[];
  rollout: DesiredState['rollout'];
  warnings: Diagnostic[];
}

export function buildPlan(inventory: string, state: DesiredState): Plan {
  return {
    schemaVersion: PLAN_SCHEMA_VERSION,
    inventory,
    nodes: state.nodes.map((node) => {
      const plan = planNode(roleInput(state, node));
      return {
        name: node.name,
        os: node.os,
        provider: node.provider,
        address: node.address,
        hostname: node.hostname,
        roles: [...node.roles],
        rolesDefaulted: node.rolesDefaulted,
        mode: node.mode,
        paused: node.paused,
        desiredVersions: node.versions,
        registry: node.registry,
        phases: planSteps(plan),
        gates: planGates(plan),
      };
    }),
    rollout: state.rollout,
    warnings: state.warnings,
  };
}

export function renderPlan(plan: Plan, pathPrefix: string): string {
  const lines: string[] = [];
  for (const warning of plan.warnings) lines.push(formatDiagnostic(warning, pathPrefix));
  if (plan.warnings.length > 0) lines.push('');
  for (const node of plan.nodes) {
    const roles = `${node.roles.join(', ')}${node.rolesDefaulted ? ' (no roles given: the deployer default)' : ''}`;
    lines.push(`${node.name}  ${node.os}  ${node.address}  roles: ${roles}`);
    const versions = Object.entries(node.desiredVersions)
      .map(([component, v]) => `${component} ${v.version} (${v.source})`)
      .join(', ');
    lines.push(`  versions: ${versions}`);
    lines.push(`  mode: ${node.mode}${node.paused ? '  PAUSED: nothing runs until paused is false' : ''}`);
    const width = Math.max(...node.phases.map((p) => p.phase.length));
    node.phases.forEach((p, i) => {
      lines.push(`  ${i + 1}. ${p.phase.padEnd(width)}  ${p.reason}`);
    });
    for (const gate of node.gates) lines.push(`  waits for ${gate.node}: ${gate.reason}`);
    lines.push('');
  }
  const r = plan.rollout;
  lines.push(`rollout: maxUnavailable ${r.maxUnavailable}, failureBudget ${r.failureBudget}, removalPolicy ${r.removalPolicy}`);
  return lines.join('\n');
}
