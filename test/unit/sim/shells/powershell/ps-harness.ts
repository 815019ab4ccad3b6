// A small host and registry for the PowerShell language tests: the interpreter alone, no Windows model.

import type { CmdletSpec, NativeSpec, Registry } from '../../../../../src/sim/shells/powershell/commands.js';
import { PsError } from '../../../../../src/sim/shells/powershell/errors.js';
import { Interpreter } from '../../../../../src/sim/shells/powershell/interpreter.js';
import { loadPowerShellParser } from '../../../../../src/sim/shells/powershell/parser.js';
import { UTILITY_CMDLETS } from '../../../../../src/sim/shells/powershell/utility-cmdlets.js';
import type { Parser } from '../../../../../src/sim/shells/tree-sitter.js';

export class TestHost {
  readonly files = new Map<string, Buffer>();
  hnsImported = false;

  writeBytes(path: string, bytes: Buffer): string | undefined {
    this.files.set(path, bytes);
    return undefined;
  }
}

const CMDLETS: CmdletSpec<TestHost>[] = [
  ...(UTILITY_CMDLETS as CmdletSpec<TestHost>[]),
  {
    // A cmdlet of a module this host lacks until it is imported (Get-HnsNetwork on Server 2016 without hns.psm1).
    name: 'Get-HnsNetwork',
    params: {},
    available: (host) => host.hnsImported,
    run: () => ['nat'],
  },
  {
    // A cmdlet that writes a non-terminating error, as Get-Service does for a missing service.
    name: 'Get-Thing',
    params: { Name: { type: 'string', position: 0 } },
    run(_host, args, _input, ctx) {
      if (args.Name === 'here') return ['found'];
      ctx.error(
        new PsError(
          `Cannot find any thing with name '${args.Name}'.`,
          'NoThingFound,Get-Thing',
          `ObjectNotFound: (${args.Name}:String) [Get-Thing], ItemNotFoundException`,
        ),
      );
      return [];
    },
  },
  {
    name: 'Get-Odd',
    params: {},
    run(_host, _args, _input, ctx) {
      ctx.error(new PsError('this cmdlet does not model that', 'NotSupportedBySimulator', 'NotImplemented'));
      return [];
    },
  },
];

const NATIVES: NativeSpec<TestHost>[] = [
  {
    // cmd.exe /c "echo out & echo err 1>&2 & exit N"
    names: ['tool', 'tool.exe'],
    run: (_host, argv) => ({
      stdout: 'out\r\n',
      stderr: argv.includes('--warn') ? 'warning: careful\r\n' : '',
      exitCode: Number(argv[0] ?? 0),
    }),
  },
];

const registry: Registry<TestHost> = {
  cmdlets: new Map(CMDLETS.map((c) => [c.name.toLowerCase(), c])),
  natives: new Map(NATIVES.flatMap((n) => n.names.map((name) => [name, n]))),
};

const parser: Parser = await loadPowerShellParser();

export function run(script: string, host = new TestHost()) {
  const tree = parser.parse(script);
  if (!tree) throw new Error('no tree');
  try {
    return new Interpreter(host, registry, {}).run(tree, script);
  } finally {
    tree.delete();
  }
}
export const out = (script: string) => run(script).stdout.split('\r\n').slice(0, -1);
