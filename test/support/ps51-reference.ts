// What Windows PowerShell 5.1 accepts of a command call on Server 2016 (14393) and 2019 (17763): its named
// parameters against Microsoft's per-build command metadata (PSScriptAnalyzer's compatibility profiles, read
// into test/fixtures/windows/windows-cmdlets-2016-2019.json; its .md says how), and the -Encoding values of
// 5.1's reference pages. Commands the profiles do not have are not judged here (the .md lists them), but for a
// few whose 5.1 page is read below.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WindowsBuild } from '../../src/sim/windows/windows-state.js';
import { SURFACE } from './ps51-surface-data.js';
import type { CommandCall } from './ps51-syntax.js';

interface ProfileParameter {
  name: string;
}

interface ProfileCommand {
  present: boolean;
  parameter_sets?: { name: string; parameters: ProfileParameter[] }[];
  parameters_in_all_sets?: ProfileParameter[];
  parameter_aliases?: Record<string, string>;
  command_aliases?: string[];
}

interface Profiles {
  builds: Record<string, { powershell_version: string; commands: Record<string, ProfileCommand> }>;
}

const PROFILES = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'windows', 'windows-cmdlets-2016-2019.json'), 'utf8'),
) as Profiles;

/** The profiles never record these (their .md, "Common parameters"); with about_CommonParameters' aliases. */
const COMMON: Record<string, string[]> = {
  Verbose: ['vb'],
  Debug: ['db'],
  ErrorAction: ['ea'],
  WarningAction: ['wa'],
  InformationAction: ['infa'],
  ErrorVariable: ['ev'],
  WarningVariable: ['wv'],
  InformationVariable: ['iv'],
  OutVariable: ['ov'],
  OutBuffer: ['ob'],
  PipelineVariable: ['pv'],
};

/** The FileSystem provider's encodings on 5.1 (FileSystemCmdletProviderEncoding). */
const PROVIDER_ENCODINGS = [
  'ASCII',
  'BigEndianUnicode',
  'BigEndianUTF32',
  'Byte',
  'Default',
  'OEM',
  'String',
  'Unicode',
  'Unknown',
  'UTF7',
  'UTF8',
  'UTF32',
];

/**
 * The cmdlets with -Encoding the roles could use, their 5.1 aliases, and the values 5.1 accepts. Set-Content,
 * Add-Content and Get-Content take the provider's enum (MicrosoftDocs/PowerShell-Docs reference/5.1/
 * Microsoft.PowerShell.Management/Set-Content.md, "Accepted values"), Out-File a string of its own set
 * (reference/5.1/Microsoft.PowerShell.Utility/Out-File.md). 7's utf8BOM, utf8NoBOM, ansi and code page numbers are
 * not among them. `writes`: a file writer, whose default differs between 5.1 and 7 (about_Character_Encoding).
 */
const ENCODING_CMDLETS: Record<string, { aliases: string[]; values: string[]; writes: boolean }> = {
  'Set-Content': { aliases: ['sc'], values: PROVIDER_ENCODINGS, writes: true },
  'Add-Content': { aliases: ['ac'], values: PROVIDER_ENCODINGS, writes: true },
  'Out-File': {
    aliases: [],
    values: ['Unknown', 'String', 'Unicode', 'BigEndianUnicode', 'UTF8', 'UTF7', 'UTF32', 'ASCII', 'Default', 'OEM'],
    writes: true,
  },
  'Get-Content': { aliases: ['gc', 'cat', 'type'], values: PROVIDER_ENCODINGS, writes: false },
};

function encodingCmdlet(name: string): [string, (typeof ENCODING_CMDLETS)[string]] | undefined {
  const lower = name.toLowerCase();
  return Object.entries(ENCODING_CMDLETS).find(([n, c]) => n.toLowerCase() === lower || c.aliases.includes(lower));
}

/** The file writer a call is (Set-Content, Add-Content, Out-File), if it is one. */
export const writerOf = (call: CommandCall) => {
  const found = encodingCmdlet(call.name);
  return found?.[1].writes ? found[0] : undefined;
};

/** The -Encoding a call gives (written whole or as a prefix, -En at least), if any. */
export function encodingOf(call: CommandCall): string | undefined {
  const p = call.parameters.find((q) => q.name.length >= 2 && 'encoding'.startsWith(q.name.toLowerCase()));
  return p ? (p.value ?? p.argument ?? '') : undefined;
}

/** An -Encoding value 5.1 would refuse. */
export function encodingProblem(call: CommandCall): string | undefined {
  const found = encodingCmdlet(call.name);
  const value = encodingOf(call);
  if (!found || value === undefined) return undefined;
  const [name, { values }] = found;
  return values.some((v) => v.toLowerCase() === value.toLowerCase())
    ? undefined
    : `${name} -Encoding ${value}: Windows PowerShell 5.1 accepts only ${values.join(', ')}`;
}

/**
 * 5.1 cmdlets the profiles' extract lacks, from their 5.1 reference pages, where 7 added parameters a role might
 * reach for: ConvertFrom-Json is -InputObject alone on 5.1 (reference/5.1/Microsoft.PowerShell.Utility/
 * ConvertFrom-Json.md; -AsHashtable came in 6.0, -Depth in 6.2, -NoEnumerate later: reference/7.4's page).
 */
const FROM_PAGES: Record<string, ProfileCommand> = {
  'ConvertFrom-Json': { present: true, parameters_in_all_sets: [{ name: 'InputObject' }] },
};

/**
 * Parameters a provider adds on its drives, which the profiles (static parameters only) do not record: the registry
 * provider's -Type on Set-ItemProperty and New-ItemProperty (MicrosoftDocs/PowerShell-Docs reference/5.1/
 * Microsoft.PowerShell.Core/About/about_Registry_Provider.md, "Dynamic parameters" and its New-ItemProperty example).
 */
const PROVIDER_DYNAMIC: Record<string, string[]> = { 'Set-ItemProperty': ['Type'], 'New-ItemProperty': ['Type'] };

/**
 * The engine's commands (Microsoft.PowerShell.*, CimCmdlets, WSMan) from the wider extract (ps51-surface.json), as
 * profile entries: their parameters by name, without sets. The 56 commands of the first extract come first.
 */
const ENGINE: Record<string, ProfileCommand> = Object.fromEntries(
  Object.entries(SURFACE.engine_commands).map(([name, c]) => [
    name,
    {
      present: true,
      parameters_in_all_sets: [...c.parameters, ...(PROVIDER_DYNAMIC[name] ?? [])].map((p) => ({ name: p })),
      parameter_aliases: c.parameter_aliases,
      command_aliases: c.aliases,
    },
  ]),
);

/** Each build's commands by every name they answer to (lower case): proper name, aliases. */
const BY_NAME = new Map(
  Object.entries(PROFILES.builds).map(([build, { commands }]) => {
    const names = new Map<string, [string, ProfileCommand]>();
    for (const [proper, entry] of Object.entries({ ...ENGINE, ...FROM_PAGES, ...commands })) {
      if (!entry.present) continue;
      for (const n of [proper, ...(entry.command_aliases ?? [])]) names.set(n.toLowerCase(), [proper, entry]);
    }
    return [build, names];
  }),
);

/** The profile's entry for a command or one of its aliases on a build, when the profile (or a 5.1 page) has it. */
function profileOf(build: WindowsBuild, name: string): [string, ProfileCommand] | undefined {
  const names = BY_NAME.get(String(build));
  if (!names) throw new Error(`no 5.1 profile for build ${build}`);
  return names.get(name.toLowerCase());
}

/**
 * Whether the command's noun is one of a command the first extract records as absent: its .md says the profiles say
 * nothing of the Hyper-V, Containers, HNS, PackageManagement and PowerShellGet modules (Get-HnsNetwork absent, so
 * Remove-HnsNetwork is not judged either).
 */
export const unprofiledNoun = (build: WindowsBuild, name: string) => {
  const noun = (n: string) => n.slice(n.indexOf('-') + 1).toLowerCase();
  return Object.entries(PROFILES.builds[String(build)]?.commands ?? {}).some(([n, c]) => !c.present && noun(n) === noun(name));
};

/** Whether the 5.1 profile of `build` has the command (else it is not judged). */
export const profiled = (build: WindowsBuild, name: string) => profileOf(build, name) !== undefined;

/** A parameter as written to its proper name: exact, an alias, or a unique prefix, as 5.1's binder resolves it. */
export function resolveParameter(written: string, names: string[], aliases: Record<string, string>): string | undefined {
  const lower = written.toLowerCase();
  const exact = names.find((n) => n.toLowerCase() === lower);
  if (exact) return exact;
  const alias = Object.entries(aliases).find(([a]) => a.toLowerCase() === lower)?.[1];
  if (alias) return alias;
  const prefixed = names.filter((n) => n.toLowerCase().startsWith(lower));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/**
 * What 5.1 on `build` would refuse in this call: a named parameter the cmdlet does not have there, parameters
 * that fit no one parameter set together. Empty when the profile lacks the command.
 */
export function callProblems(build: WindowsBuild, call: CommandCall): string[] {
  const found = profileOf(build, call.name);
  if (!found) return [];
  const [proper, entry] = found;
  const sets = entry.parameter_sets ?? [];
  const allSets = (entry.parameters_in_all_sets ?? []).map((p) => p.name);
  const own = [...new Set([...sets.flatMap((s) => s.parameters.map((p) => p.name)), ...allSets])];
  const commonAliases = Object.fromEntries(Object.entries(COMMON).flatMap(([n, list]) => list.map((a) => [a, n])));
  const aliases = { ...commonAliases, ...(entry.parameter_aliases ?? {}) };
  const names = [...own, ...Object.keys(COMMON)];
  const problems: string[] = [];
  const used: string[] = [];
  for (const p of call.parameters) {
    const name = resolveParameter(p.name, names, aliases);
    if (!name) {
      problems.push(`${proper} -${p.name}: not a parameter of ${proper} in Windows PowerShell 5.1 on ${build}`);
      continue;
    }
    used.push(name);
  }
  const fits = (set: { parameters: ProfileParameter[] }) =>
    used.every((u) => u in COMMON || allSets.includes(u) || set.parameters.some((p) => p.name === u));
  if (problems.length === 0 && sets.length > 0 && !sets.some(fits))
    problems.push(`${proper} ${used.map((u) => `-${u}`).join(' ')}: no parameter set of 5.1 on ${build} has them all`);
  return problems;
}
