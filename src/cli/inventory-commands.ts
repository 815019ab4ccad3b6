// `groundcrew validate` and `groundcrew plan`: read an inventory, report, and set the exit code.

import { formatDiagnostic } from '../inventory/diagnostic.js';
import { loadInventory } from '../inventory/load-inventory.js';
import { inertJson, inertLines } from './inert-text.js';
import { buildPlan, renderPlan } from './plan-report.js';

export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Exit codes: 0 valid, 1 invalid (every error listed), 2 could not be read at all. */
export async function validateCommand(path: string, io: Output): Promise<number> {
  const loaded = await loadInventory(path).catch((err: Error) => err);
  if (loaded instanceof Error) {
    io.err(`groundcrew: ${inertLines(loaded.message)}`);
    return 2;
  }
  const { root, result } = loaded;
  for (const warning of result.warnings) io.err(inertLines(formatDiagnostic(warning, root)));
  if (!result.ok) {
    for (const error of result.errors) io.err(inertLines(formatDiagnostic(error, root)));
    io.err(`${result.errors.length} error${result.errors.length === 1 ? '' : 's'}: ${path} is not a valid inventory`);
    return 1;
  }
  const nodes = result.state.nodes;
  const windows = nodes.filter((n) => n.os === 'windows').length;
  io.out(`${path}: valid, ${nodes.length} nodes (${nodes.length - windows} Linux, ${windows} Windows)`);
  return 0;
}

export async function planCommand(path: string, options: { json?: boolean }, io: Output): Promise<number> {
  const loaded = await loadInventory(path).catch((err: Error) => err);
  if (loaded instanceof Error) {
    io.err(`groundcrew: ${inertLines(loaded.message)}`);
    return 2;
  }
  const { root, result } = loaded;
  if (!result.ok) {
    for (const diagnostic of [...result.errors, ...result.warnings]) io.err(inertLines(formatDiagnostic(diagnostic, root)));
    io.err(`${path} is not a valid inventory: nothing to plan`);
    return 1;
  }
  const plan = buildPlan(path, result.state);
  io.out(options.json ? inertJson(JSON.stringify(plan, null, 2)) : inertLines(renderPlan(plan, root)));
  return 0;
}
