// Holds every simulated cmdlet to its reference page (cmdlet-catalogue.ts): a cmdlet the catalogue lacks,
// one declaring a parameter its page does not have, or one of a type the page's type cannot take, stops the
// simulator at start; a call whose named
// parameters fit no parameter set is refused as PowerShell refuses it.

import type { CmdletSpec } from '../shells/powershell/commands.js';
import { PsTerminatingError } from '../shells/powershell/errors.js';
import { catalogueEntry, parameterSetProblem } from './cmdlet-catalogue.js';

/**
 * Whether a simulated parameter type takes what the documented type takes: a switch only a SwitchParameter;
 * `string[]` an array (of strings or of an enum, which PowerShell converts from strings); `string` a single value
 * converted from a string (String, an enum, Uri, Version, ...); `int` a single integer; `object` anything bound
 * by value. A documented array declared as `string` would refuse the lists PowerShell accepts.
 */
export function typeFits(sim: string, documented: string): boolean {
  const type = documented.replace(/^System\.(Management\.Automation\.)?/, '');
  const array = type.endsWith('[]');
  const base = type.replace(/\[\]$/, '');
  const integer = /^U?Int(16|32|64)$|^Byte$/.test(base);
  if (base === 'SwitchParameter') return sim === 'switch';
  if (base === 'ScriptBlock') return sim === 'scriptblock' || sim === 'object';
  switch (sim) {
    case 'string[]':
      return array && !integer;
    case 'string':
      return !array && !integer && base !== 'Boolean';
    case 'int':
      return !array && integer;
    case 'object':
      return true;
    default:
      return false;
  }
}

export function catalogued<H>(spec: CmdletSpec<H>): CmdletSpec<H> {
  const entry = catalogueEntry(spec.name);
  if (!entry) throw new Error(`the simulated ${spec.name} has no entry in the cmdlet catalogue (src/sim/windows/cmdlet-catalogue.ts)`);
  for (const name of Object.keys(spec.params))
    if (!entry.parameters.has(name.toLowerCase()))
      throw new Error(`the simulated ${spec.name} declares -${name}, which its reference page (${entry.doc}) does not have`);
  for (const [name, param] of Object.entries(spec.params)) {
    const documented = entry.types.get(name.toLowerCase());
    if (documented && !typeFits(param.type, documented))
      throw new Error(`the simulated ${spec.name} declares -${name} as ${param.type}; its reference page has ${documented}`);
  }
  const documented = new Set([
    ...entry.parameters.keys(),
    ...Object.values(entry.aliases).flatMap((list) => list.map((a) => a.toLowerCase())),
    ...(entry.shouldProcess ? ['whatif', 'confirm', 'wi', 'cf'] : []),
  ]);
  return {
    ...spec,
    // The page says whether the cmdlet takes -WhatIf/-Confirm; the simulated spec cannot say otherwise.
    supportsShouldProcess: entry.shouldProcess,
    documented,
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
