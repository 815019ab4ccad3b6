// A script the grammar cannot parse: nothing runs, and the error is written as PowerShell's parser writes it.

import type { CommandResult } from '../../command-result.js';
import type { SyntaxProblem } from '../tree-sitter.js';

export function syntaxErrorResult(script: string, problem: SyntaxProblem): CommandResult {
  const line = script.split(/\r?\n/)[problem.line - 1] ?? '';
  return {
    stdout: '',
    stderr: `At line:${problem.line} char:${problem.col}\r\n+ ${line}\r\n${problem.token ? `Unexpected token '${problem.token}' in expression or statement.` : 'Missing expression or closing token.'}\r\n    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\r\n    + FullyQualifiedErrorId : UnexpectedToken\r\n`,
    exitCode: 1,
  };
}
