// Builds in-memory inventories for tests and formats their diagnostics the way the CLI prints them.

import { formatDiagnostic } from '../../../src/inventory/diagnostic.js';
import { type InventoryResult, parseInventory } from '../../../src/inventory/parse-inventory.js';

export function parse(instances: string, nodeFiles: Record<string, string> = {}, repoFile?: string): InventoryResult {
  return parseInventory({
    instances: { path: 'instances.yaml', text: instances },
    nodeFiles: Object.entries(nodeFiles).map(([path, text]) => ({ path, text })),
    ...(repoFile === undefined ? {} : { repoFile: { path: 'groundcrew.yaml', text: repoFile } }),
  });
}

export function errorsOf(result: InventoryResult): string[] {
  if (result.ok) return [];
  return result.errors.map((d) => formatDiagnostic(d));
}

export function warningsOf(result: InventoryResult): string[] {
  return result.warnings.map((d) => formatDiagnostic(d));
}

/** Lines joined with newlines, so test inventories read like files and line numbers are easy to count. */
export const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;

/** instances.yaml lines of a Linux node on bms with one role (vrouter unless told), for the cases to build on. */
export const linuxNode = (name: string, ip: string, role = 'vrouter'): string[] => [
  `  ${name}:`,
  '    provider: bms',
  `    ip: ${ip}`,
  '    roles:',
  `      ${role}:`,
];
