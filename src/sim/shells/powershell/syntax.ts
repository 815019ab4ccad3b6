// Reading tree-sitter-powershell trees: wrappers to see through, statement blocks, names, and the error for
// a construct the simulator does not model.

import { PsUnmodelled } from './errors.js';
import type { Node } from './parser.js';

/** Node types that only wrap one meaningful child in this grammar. */
const WRAPPERS = new Set([
  'program',
  'pipeline',
  'logical_expression',
  'bitwise_expression',
  'comparison_expression',
  'additive_expression',
  'multiplicative_expression',
  'format_expression',
  'range_expression',
  'array_literal_expression',
  'unary_expression',
  'left_assignment_expression',
  'pipeline_chain',
  'statement_list',
  'expression_with_unary_operator',
  'command_name_expr',
  'integer_literal',
]);

/** Nodes whose named children are statements. */
export const BLOCKS = new Set(['program', 'statement_block', 'statement_list', 'script_block', 'script_block_body']);

/** Method arguments have their own precedence chain (logical_argument_expression, ...); it means the same. */
export function kind(node: Node): string {
  return node.type.replace('_argument_expression', '_expression');
}

export function unwrap(node: Node): Node {
  let current = node;
  while (
    (WRAPPERS.has(kind(current)) || current.type === 'argument_expression') &&
    current.namedChildCount === 1 &&
    current.childCount === 1
  ) {
    current = current.namedChild(0) as Node;
  }
  return current;
}

/** `$x`, `${x}` -> `x`. */
export function variableName(node: Node): string {
  return node.text.replace(/^\$\{?|\}$/g, '');
}

export function unsupported(node: Node, what = node.type): PsUnmodelled {
  return new PsUnmodelled(
    `groundcrew sim: this PowerShell construct (${what}) is outside the simulated subset (docs/simulator.md): ${node.text.slice(0, 60)}`,
  );
}

/** The same refusal for what has no node of its own (an operator, a .NET member, a format string). */
export function notModelled(what: string): PsUnmodelled {
  return new PsUnmodelled(`groundcrew sim: ${what} is outside the simulated subset (docs/simulator.md)`);
}
