// A script tree-sitter-powershell cannot parse: nothing runs. The grammar is narrower than PowerShell's own parser
// (one-line `switch` clauses, `param()` not ending its line, `.ForEach({})`, labelled loops...), so a problem it
// finds is not known to be a syntax error: it is refused by name, never reported in PowerShell's parser wording.

import type { CommandResult } from '../../command-result.js';
import type { Node, SyntaxProblem } from '../tree-sitter.js';
import { NOT_MODELLED_ID } from './errors.js';

export function syntaxErrorResult(script: string, problem: SyntaxProblem): CommandResult {
  const line = script.split(/\r?\n/)[problem.line - 1] ?? '';
  const near = problem.token ? ` near '${problem.token}'` : '';
  return {
    stdout: '',
    stderr: `groundcrew sim: tree-sitter-powershell cannot parse line ${problem.line} char ${problem.col}${near}: a syntax error, or PowerShell syntax outside the simulated subset (docs/simulator.md)\r\nAt line:${problem.line} char:${problem.col}\r\n+ ${line}\r\n    + CategoryInfo          : NotImplemented: (:) [], ParseException\r\n    + FullyQualifiedErrorId : ${NOT_MODELLED_ID}\r\n`,
    exitCode: 1,
  };
}

/**
 * tree-sitter-powershell reads a bareword list (`-Profile Domain,Public,Private`, `Write-Output a,b,c`) as tokens
 * `Domain` `,Public` `,Private` with a missing separator before each: PowerShell's parser reads one array
 * argument there (about_Parsing, argument mode). pipelines.ts joins the tokens back.
 */
export function isBarewordListGap(node: Node): boolean {
  const next = node.nextSibling;
  return (
    node.type === 'command_argument_sep' &&
    node.text === '' &&
    node.children.every((c) => c?.isMissing) &&
    next?.type === 'generic_token' &&
    // A plain word only: tree-sitter splits a quoted item (a,'b c' as `,'b` and `c'`), which is refused.
    /^,[\w.:\\-]+$/.test(next.text)
  );
}
