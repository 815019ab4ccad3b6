// Error codes of the inventory: see docs/errors.md for what an operator does about each.

import { GroundcrewError } from '../errors.js';
import { type Diagnostic, formatDiagnostic } from './diagnostic.js';

export const INVENTORY_NOT_FOUND = 'GC_INVENTORY_NOT_FOUND';
export const INVENTORY_INVALID = 'GC_INVENTORY_INVALID';

export class InventoryInvalidError extends GroundcrewError {
  readonly diagnostics: readonly Diagnostic[];

  constructor(diagnostics: readonly Diagnostic[]) {
    const first = diagnostics[0];
    const more = diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more)` : '';
    super(INVENTORY_INVALID, `inventory rejected: ${first ? formatDiagnostic(first) : 'no reason given'}${more}`);
    this.diagnostics = diagnostics;
  }
}
