// Holds every simulated cmdlet to its reference page (cmdlet-catalogue.ts): a cmdlet the catalogue lacks,
// or one declaring a parameter its page does not have, stops the simulator at start; a call whose named
// parameters fit no parameter set is refused as PowerShell refuses it.

import type { CmdletSpec } from '../shells/powershell/commands.js';
import { PsTerminatingError } from '../shells/powershell/errors.js';
import { catalogueEntry, parameterSetProblem } from './cmdlet-catalogue.js';

export function catalogued<H>(spec: CmdletSpec<H>): CmdletSpec<H> {
  const entry = catalogueEntry(spec.name);
  if (!entry) throw new Error(`the simulated ${spec.name} has no entry in the cmdlet catalogue (src/sim/windows/cmdlet-catalogue.ts)`);
  for (const name of Object.keys(spec.params))
    if (!entry.parameters.has(name.toLowerCase()))
      throw new Error(`the simulated ${spec.name} declares -${name}, which its reference page (${entry.doc}) does not have`);
  return {
    ...spec,
    run(host, args, input, ctx) {
      const problem = parameterSetProblem(spec.name, Object.keys(args));
      if (problem)
        throw new PsTerminatingError(
          problem,
          `AmbiguousParameterSet,${spec.name}`,
          `InvalidArgument: (:) [${spec.name}], ParameterBindingException`,
          spec.name,
        );
      return spec.run(host, args, input, ctx);
    },
  };
}
