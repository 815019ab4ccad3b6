// PowerShell parsing with the tree-sitter-powershell grammar (wasm), shared by the simulator and tests.

import { loadParser, type Parser } from '../tree-sitter.js';

export function loadPowerShellParser(): Promise<Parser> {
  return loadParser('tree-sitter-powershell');
}

export type { Node, Tree } from '../tree-sitter.js';
