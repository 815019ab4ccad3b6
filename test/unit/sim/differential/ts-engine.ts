// The simulator's side of the differential suite: the TypeScript interpreter with the cmdlets every host has and
// one native program, gc-tool, modelled on bin/gc-tool (which real pwsh runs).

import type { CommandResult } from '../../../../src/sim/command-result.js';
import type { CmdletSpec, NativeSpec, Registry } from '../../../../src/sim/shells/powershell/commands.js';
import { Interpreter } from '../../../../src/sim/shells/powershell/interpreter.js';
import { loadPowerShellParser } from '../../../../src/sim/shells/powershell/parser.js';
import { isBarewordListGap, syntaxErrorResult } from '../../../../src/sim/shells/powershell/syntax-error.js';
import { UTILITY_CMDLETS } from '../../../../src/sim/shells/powershell/utility-cmdlets.js';
import { firstSyntaxProblem } from '../../../../src/sim/shells/tree-sitter.js';
import { catalogued } from '../../../../src/sim/windows/catalogued.js';

/** A host with no state: what the language snippets need. */
class BareHost {
  writeBytes(): string | undefined {
    return 'groundcrew differential: files are outside the language corpus';
  }
}

const gcTool: NativeSpec<BareHost> = {
  names: ['gc-tool'],
  run: (_host, argv) => ({
    stdout: 'out\n',
    stderr: argv.includes('--warn') ? 'warning: careful\n' : '',
    exitCode: Number(argv[0] ?? 0),
  }),
};

const registry: Registry<BareHost> = {
  // Held to their reference pages as a Windows host holds them (catalogued.ts).
  cmdlets: new Map((UTILITY_CMDLETS as CmdletSpec<BareHost>[]).map((c) => [c.name.toLowerCase(), catalogued(c)])),
  natives: new Map(gcTool.names.map((n) => [n, gcTool])),
};

const parser = await loadPowerShellParser();

export function runInSimulator(script: string): CommandResult {
  const tree = parser.parse(script);
  if (!tree) throw new Error('tree-sitter gave no tree');
  try {
    const problem = firstSyntaxProblem(tree, isBarewordListGap);
    if (problem) return syntaxErrorResult(script, problem);
    return new Interpreter(new BareHost(), registry, {}).run(tree, script);
  } finally {
    tree.delete();
  }
}
