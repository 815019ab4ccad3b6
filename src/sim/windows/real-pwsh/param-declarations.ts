// Each simulated cmdlet's parameters as its real-pwsh function declares them: Windows PowerShell 5.1's own
// metadata for the build where PSScriptAnalyzer's profiles record the command (cmdlet-metadata.ts), else the
// cmdlet catalogue (sets, aliases and types from Microsoft's pages) with positions from the simulated cmdlet.

import type { ParamSpec } from '../../shells/powershell/commands.js';
import type { CatalogueEntry } from '../cmdlet-catalogue.js';
import type { CommandMetadata } from './cmdlet-metadata.js';
import type { PageBinding } from './page-binding.js';

export interface ParamUse {
  /** undefined: every parameter set. */
  set?: string;
  position?: number;
  mandatory: boolean;
  pipeline: boolean;
  byPropertyName: boolean;
  remaining: boolean;
}

export interface ParamDeclaration {
  name: string;
  /** The .NET type as the source spells it (System.String[], SwitchParameter, Feature[]). */
  dotnetType: string | undefined;
  aliases: string[];
  uses: ParamUse[];
}

export interface CommandDeclaration {
  defaultSet: string | undefined;
  shouldProcess: boolean;
  params: ParamDeclaration[];
}

/** Parameters pwsh gives every advanced function (and -WhatIf/-Confirm with SupportsShouldProcess). */
export const COMMON_PARAMETERS = new Set(
  [
    'Verbose',
    'Debug',
    'ErrorAction',
    'WarningAction',
    'InformationAction',
    'ProgressAction',
    'ErrorVariable',
    'WarningVariable',
    'InformationVariable',
    'OutVariable',
    'OutBuffer',
    'PipelineVariable',
    'WhatIf',
    'Confirm',
  ].map((p) => p.toLowerCase()),
);
const COMMON_ALIASES = new Set(['vb', 'db', 'ea', 'wa', 'infa', 'ev', 'wv', 'iv', 'ov', 'ob', 'pv', 'wi', 'cf', 'proga']);

function declaration(name: string): ParamDeclaration {
  return { name, dotnetType: undefined, aliases: [], uses: [] };
}

export function fromMetadata(meta: CommandMetadata): CommandDeclaration {
  const params = new Map<string, ParamDeclaration>();
  const get = (name: string) => params.get(name.toLowerCase()) ?? params.set(name.toLowerCase(), declaration(name)).get(name.toLowerCase());
  for (const set of meta.sets)
    for (const [name, type, mandatory, position, flags] of set.params) {
      const d = get(name) as ParamDeclaration;
      d.dotnetType = type;
      d.uses.push({
        set: set.name,
        mandatory: mandatory === 1,
        ...(position >= 0 ? { position } : {}),
        pipeline: flags.includes('v'),
        byPropertyName: flags.includes('p'),
        remaining: flags.includes('r'),
      });
    }
  for (const [name, type] of meta.allSets) {
    const d = get(name) as ParamDeclaration;
    d.dotnetType = type;
    d.uses.push({ mandatory: false, pipeline: false, byPropertyName: false, remaining: false });
  }
  for (const [alias, param] of Object.entries(meta.aliases)) params.get(param.toLowerCase())?.aliases.push(alias);
  return { defaultSet: meta.defaultSet ?? undefined, shouldProcess: meta.shouldProcess, params: withoutCommon([...params.values()]) };
}

/**
 * From the catalogue: a parameter of every set is declared for all sets, with the simulated cmdlet's position and
 * mandatory flag; one of some sets only, per set and named only (the generated catalogue keeps no positions).
 * Where page-binding.ts has the page's position, mandatory flag or ByValue binding, those win, in every set of the
 * parameter. An InputObject parameter takes the pipeline, as every InputObject of these cmdlets does.
 */
export function fromCatalogue(
  entry: CatalogueEntry,
  sim: Record<string, ParamSpec>,
  page: Record<string, PageBinding> = {},
): CommandDeclaration {
  const sets = Object.entries(entry.sets);
  const simOf = (name: string) => Object.entries(sim).find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
  const params = [...entry.parameters.values()].map((name) => {
    const d = declaration(name);
    const spec = simOf(name);
    d.dotnetType = entry.types.get(name.toLowerCase());
    d.aliases = [...(entry.aliases[name] ?? []), ...(spec?.aliases ?? [])];
    const inSets = sets.filter(([, ps]) => ps.some((p) => p.toLowerCase() === name.toLowerCase())).map(([s]) => s);
    const bound = page[name];
    const pipeline = bound?.byValue ?? name.toLowerCase() === 'inputobject';
    const position = bound?.position ?? (inSets.length === sets.length ? spec?.position : undefined);
    const use = {
      mandatory: bound?.mandatory ?? (inSets.length === sets.length ? (spec?.mandatory ?? false) : false),
      ...(position !== undefined ? { position } : {}),
      pipeline,
      byPropertyName: false,
      remaining: false,
    };
    if (inSets.length === sets.length) d.uses.push(use);
    else for (const set of inSets) d.uses.push({ set, ...use });
    return d;
  });
  return { defaultSet: sets.length > 1 ? sets[0]?.[0] : undefined, shouldProcess: entry.shouldProcess, params: withoutCommon(params) };
}

/** Common parameters are pwsh's own; an alias may not repeat a parameter's name or another alias. */
function withoutCommon(params: ParamDeclaration[]): ParamDeclaration[] {
  const kept = params.filter((p) => !COMMON_PARAMETERS.has(p.name.toLowerCase()));
  const taken = new Set([...kept.map((p) => p.name.toLowerCase()), ...COMMON_PARAMETERS, ...COMMON_ALIASES]);
  for (const p of kept)
    p.aliases = p.aliases.filter((a) => {
      const lower = a.toLowerCase();
      if (taken.has(lower)) return false;
      taken.add(lower);
      return true;
    });
  return kept;
}
