// Writes test/fixtures/windows/ps51-surface.json, the data the 5.1 guard (test/support/ps51-surface.ts) needs beyond
// windows-cmdlets-2016-2019.json: what Windows PowerShell 5.1 on Server 2016 (14393) and 2019 (17763) has of the
// commands, parameters, variables and .NET members that PowerShell 7 has more of. Every value is read from its
// source; nothing is written by hand (ps51-surface.md names the sources and how each part is read).
// Usage: tsx scripts/ps51-reference-data.ts <dir>, where <dir> holds
//   14393.json, 17763.json   PSScriptAnalyzer's CrossCompatibility profiles (commit and paths: SOURCES)
//   settings-5.1.json        PSScriptAnalyzer's Engine/Settings/desktop-5.1.14393.206-windows.json
//   docs/                    a PowerShell-Docs checkout (the about_ pages in SOURCES)
//   net462/, net472/         the reference assemblies of the NuGet packages in SOURCES (build/.NETFramework/v4.x.2)

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
if (!dir) throw new Error('usage: tsx scripts/ps51-reference-data.ts <dir>');
const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'test', 'fixtures', 'windows', 'ps51-surface.json');

/** The engine's modules, which both 5.1 and 7 ship and where 7 added commands and parameters. */
const ENGINE = [
  'Microsoft.PowerShell.Core',
  'Microsoft.PowerShell.Management',
  'Microsoft.PowerShell.Utility',
  'Microsoft.PowerShell.Security',
  'Microsoft.PowerShell.Host',
  'Microsoft.PowerShell.Diagnostics',
  'Microsoft.PowerShell.Archive',
  'CimCmdlets',
  'Microsoft.WSMan.Management',
];

/**
 * The .NET types whose members the guard judges: those the roles' scripts use and the guard's own tests name. A
 * script that uses another type's members is refused by name by the guard until the type is added here.
 */
const TYPES = [
  'System.String',
  'System.IO.Path',
  'System.IO.File',
  'System.IO.Directory',
  'System.Convert',
  'System.BitConverter',
  'System.Math',
  'System.Text.Encoding',
  'System.Text.RegularExpressions.Regex',
  'System.Environment',
  'System.Console',
  'System.Diagnostics.Process',
  'System.Security.Cryptography.X509Certificates.X509Certificate2',
  'System.DateTime',
  'System.Guid',
  'System.Net.ServicePointManager',
  'System.Net.SecurityProtocolType',
  'System.StringComparison',
  'System.ServiceProcess.ServiceController',
  'System.ServiceProcess.ServiceStartMode',
  'System.ServiceProcess.ServiceControllerStatus',
  'System.Security.Principal.WindowsIdentity',
  'System.Security.Principal.WindowsPrincipal',
  'System.Security.Principal.WindowsBuiltInRole',
];

export const SOURCES = {
  profiles: {
    repository: 'PowerShell/PSScriptAnalyzer',
    commit: 'ad713a08749cc88e4069fe80467f4350e620c55c',
    licence: 'MIT',
    14393: 'CrossCompatibility/profiles/win-8_x64_10.0.14393.0_5.1.14393.2636_x64_4.0.30319.42000_framework.json',
    17763: 'CrossCompatibility/profiles/win-8_x64_10.0.17763.0_5.1.17763.134_x64_4.0.30319.42000_framework.json',
  },
  syntax: {
    repository: 'PowerShell/PSScriptAnalyzer',
    commit: '268a5f0680cf5fc1b2da344006c5ed358251cde7',
    licence: 'MIT',
    path: 'Engine/Settings/desktop-5.1.14393.206-windows.json',
  },
  variables: {
    repository: 'MicrosoftDocs/PowerShell-Docs',
    commit: '27138b21b41de3e2b43cfcac4a56861ca419d5eb',
    licence: 'CC-BY-4.0 (LICENSE.md)',
    pages: ['about_Automatic_Variables.md', 'about_Preference_Variables.md'].map(
      (p) => `reference/{5.1,7.4}/Microsoft.PowerShell.Core/About/${p}`,
    ),
  },
  dotnet: {
    licence: 'MIT (github.com/Microsoft/dotnet LICENSE)',
    14393: 'NuGet Microsoft.NETFramework.ReferenceAssemblies.net462 1.0.3 (Server 2016 ships .NET Framework 4.6.2)',
    17763: 'NuGet Microsoft.NETFramework.ReferenceAssemblies.net472 1.0.3 (Server 2019 ships .NET Framework 4.7.2)',
  },
};

type Json = Record<string, unknown>;
interface ProfileParameter {
  Type: string;
  ParameterSets?: Record<string, { Flags?: string[]; Position?: number }>;
}
interface ProfileCommand {
  OutputType?: string[];
  Parameters?: Record<string, ProfileParameter>;
  ParameterAliases?: Record<string, string>;
}
type ProfileModule = Record<
  string,
  { Cmdlets?: Record<string, ProfileCommand>; Functions?: Record<string, ProfileCommand>; Aliases?: Record<string, string> }
>;

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')) as Json;

/** Positional parameters per set from 5.1's syntax lines: `[-Name] <t>` has a position, `-Name <t>` and `[-Switch]` do not. */
function positionalCounts(): Record<string, number> {
  const settings = readJson(join(dir, 'settings-5.1.json')) as { Modules: { Name: string; ExportedCommands?: unknown }[] };
  const out: Record<string, number> = {};
  for (const m of settings.Modules) {
    if (!ENGINE.includes(m.Name)) continue;
    for (const c of [m.ExportedCommands ?? []].flat() as { Name: string; ParameterSets: string }[]) {
      const sets = c.ParameterSets.split('[<CommonParameters>]');
      out[c.Name] = Math.max(0, ...sets.map((s) => (s.match(/\[-\w+\] </g) ?? []).length));
    }
  }
  return out;
}

function commandsOf(profile: Json, positional: Record<string, number>) {
  const modules = (profile.Compatibility as { Modules: Record<string, ProfileModule> }).Modules;
  const names: string[] = [];
  const engine: Record<string, Json> = {};
  for (const [module, versions] of Object.entries(modules))
    for (const v of Object.values(versions)) {
      const aliases = Object.entries(v.Aliases ?? {});
      names.push(...Object.keys(v.Cmdlets ?? {}), ...Object.keys(v.Functions ?? {}), ...aliases.map(([a]) => a));
      if (!ENGINE.includes(module)) continue;
      for (const [name, c] of Object.entries({ ...v.Functions, ...v.Cmdlets })) {
        const parameters = Object.entries(c.Parameters ?? {});
        const ofType = (t: (type: string) => boolean) => parameters.filter(([, def]) => t(def.Type)).map(([p]) => p);
        engine[name] = {
          module,
          aliases: aliases.filter(([, target]) => target === name).map(([a]) => a),
          output: c.OutputType ?? [],
          parameters: parameters.map(([p]) => p),
          switches: ofType((t) => t === 'System.Management.Automation.SwitchParameter'),
          // Every other type, for the enum check (only enums are kept, below).
          types: Object.fromEntries(
            parameters.filter(([, def]) => !def.Type.startsWith('System.Management.Automation.')).map(([p, def]) => [p, def.Type]),
          ),
          parameter_aliases: c.ParameterAliases ?? {},
          ...(name in positional ? { positional: positional[name] } : {}),
        };
      }
    }
  return { names: [...new Set(names.map((n) => n.toLowerCase()))].sort(), engine };
}

/** Variable names a page documents: headings (`### $Name`) and the table of preference variables. */
function documentedVariables(version: string): Set<string> {
  const names = new Set<string>();
  for (const page of ['about_Automatic_Variables.md', 'about_Preference_Variables.md']) {
    const text = execFileSync(
      'git',
      ['-C', join(dir, 'docs'), 'show', `${SOURCES.variables.commit}:reference/${version}/Microsoft.PowerShell.Core/About/${page}`],
      {
        encoding: 'utf8',
      },
    );
    for (const m of text.matchAll(/^(?:#{2,3} `?|\| \[`)\$(\w+)/gim)) names.add((m[1] as string).toLowerCase());
  }
  return names;
}

function dotnet(framework: string, types: string[]): Json {
  const out = execFileSync(
    'pwsh',
    ['-NoProfile', '-File', join(ROOT, 'scripts', 'ps51-dotnet-members.ps1'), '-Directory', join(dir, framework)],
    {
      input: JSON.stringify(types),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return JSON.parse(out) as Json;
}

const positional = positionalCounts();
const builds = { 14393: 'net462', 17763: 'net472' } as const;
const commands = Object.fromEntries(Object.keys(builds).map((b) => [b, commandsOf(readJson(join(dir, `${b}.json`)), positional)]));
// Enum-typed parameters are judged by value: every parameter type of the engine's commands goes to the reader, and
// only those that are enums are kept (their values).
const parameterTypes = [
  ...new Set(
    Object.values(commands).flatMap((c) => Object.values(c.engine).flatMap((e) => Object.values(e.types as Record<string, string>))),
  ),
].map((t) => t.replace(/\[\]$/, ''));
const five = documentedVariables('5.1');
const seven = documentedVariables('7.4');
const enumNames = new Set<string>();
const isEnum = (t: string) => enumNames.has(t);
const read = Object.fromEntries(
  Object.entries(builds).map(([b, framework]) => {
    const all = dotnet(framework, [...new Set([...TYPES, ...parameterTypes])]);
    for (const [t, v] of Object.entries(all)) if ((v as Json).enum) enumNames.add(t);
    return [b, all];
  }),
);
/**
 * The members PowerShell's built-in type data adds to those types (ServiceController's Name and RequiredServices), as
 * the pwsh running this has them: no 5.1 source lists its types.ps1xml, so these are accepted, not judged.
 */
const ets = JSON.parse(
  execFileSync(
    'pwsh',
    [
      '-NoProfile',
      '-Command',
      '$t = $input | ConvertFrom-Json; $o = [ordered]@{}; foreach ($n in $t) { $m = @((Get-TypeData -TypeName $n).Members.Keys | Sort-Object); if ($m.Count) { $o[$n] = $m } }; ConvertTo-Json $o -Compress',
    ],
    {
      input: JSON.stringify(TYPES),
      encoding: 'utf8',
    },
  ),
) as Record<string, string[]>;
const perBuild = Object.entries(builds).map(([b, framework]) => {
  const all = read[b] as Json;
  const enums = Object.fromEntries(
    Object.entries(all)
      .filter(([, v]) => (v as Json).enum)
      .map(([t, v]) => [t, (v as Json).enum]),
  );
  // A parameter's type is kept when it is an enum in either framework (the enums are read per build).
  for (const e of Object.values(commands[b]?.engine ?? {}))
    e.types = Object.fromEntries(Object.entries(e.types as Record<string, string>).filter(([, t]) => isEnum(t.replace(/\[\]$/, ''))));
  return {
    build: b,
    framework,
    names: commands[b]?.names ?? [],
    engine: commands[b]?.engine ?? {},
    types: Object.fromEntries(TYPES.map((t) => [t, all[t]])),
    enums,
  };
});
// The engine's commands are the same on both builds (module versions alike): kept once, and checked to be so.
const [first, ...rest] = perBuild;
if (!first || rest.some((r) => JSON.stringify(r.engine) !== JSON.stringify(first.engine)))
  throw new Error("the engine's commands differ between the builds: keep them per build");
const shared = first.names.filter((n) => rest.every((r) => r.names.includes(n)));
const data = {
  sources: SOURCES,
  seven_only_variables: [...seven].filter((v) => !five.has(v)).sort(),
  engine_commands: first.engine,
  ets_members: ets,
  command_names_in_both: shared,
  builds: Object.fromEntries(
    perBuild.map((p) => [
      p.build,
      { framework: p.framework, command_names: p.names.filter((n) => !shared.includes(n)), types: p.types, enums: p.enums },
    ]),
  ),
};
writeFileSync(OUT, `${JSON.stringify(data)}\n`);
console.info(`wrote ${OUT}`);
