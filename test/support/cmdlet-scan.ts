// Which commands a PowerShell script calls, and with which named parameters: read from the
// tree-sitter-powershell tree, so a catalogue test sees exactly what the roles send.

import type { Node, Tree } from '../../src/sim/shells/powershell/parser.js';

export interface CommandUse {
  name: string;
  parameters: string[];
}

function walk(node: Node, out: CommandUse[]): void {
  if (node.type === 'command') {
    const name = node.namedChildren.find((c) => c?.type === 'command_name')?.text;
    if (name) {
      const parameters: string[] = [];
      const collect = (n: Node) => {
        if (n.type === 'command_parameter') parameters.push(n.text.replace(/^-/, '').replace(/:.*$/s, ''));
        else if (n.type !== 'script_block' && n.type !== 'command') for (const c of n.namedChildren) if (c) collect(c);
      };
      for (const c of node.namedChildren) if (c && c.type === 'command_elements') collect(c);
      out.push({ name, parameters });
    }
  }
  for (const c of node.namedChildren) if (c) walk(c, out);
}

export function commandsOf(tree: Tree): CommandUse[] {
  const out: CommandUse[] = [];
  walk(tree.rootNode, out);
  return out;
}

/** Verb-Noun: a cmdlet (or function); anything else is a native program (docker, bcdedit, sc.exe). */
export const isCmdlet = (name: string) => /^[A-Za-z]+-[A-Za-z]+$/.test(name);
