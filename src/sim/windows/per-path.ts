// Cmdlets whose -Path is String[] on their reference page (Get-ItemProperty, Set-ItemProperty, Move-Item):
// the simulator's body handles one path, and runs once for each path given, in order, as the cmdlet does.

import type { CmdletSpec } from '../shells/powershell/commands.js';

export function perPath<H>(spec: CmdletSpec<H>): CmdletSpec<H> {
  const path = spec.params.Path;
  if (!path) throw new Error(`${spec.name} has no -Path to take a list`);
  return {
    ...spec,
    params: { ...spec.params, Path: { ...path, type: 'string[]' } },
    run(host, args, input, ctx) {
      const paths = args.Path === undefined ? [undefined] : [args.Path].flat();
      return paths.flatMap((p) => spec.run(host, { ...args, Path: p }, input, ctx));
    },
  };
}
