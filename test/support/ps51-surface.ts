// What Windows PowerShell 5.1 lacks beyond syntax, judged from data (ps51-surface-data.ts): a command it does not
// have, more positional arguments than it takes, an enum value its parameter's type lacks, a variable only 7 defines,
// and a .NET member that .NET Framework (4.6.2 on Server 2016, 4.7.2 on 2019) does not have. Named parameters are
// judged by callProblems (ps51-reference.ts), which reads the engine's commands from the same extract.

import type { WindowsBuild } from '../../src/sim/windows/windows-state.js';
import { resolveParameter, unprofiledNoun } from './ps51-reference.js';
import { type EngineCommand, SURFACE } from './ps51-surface-data.js';
import type { CommandCall, MemberUse, ScriptSyntax } from './ps51-syntax.js';

const lower = (s: string) => s.toLowerCase();
const namesOf = (build: WindowsBuild) => {
  const own = SURFACE.builds[String(build)];
  if (!own) throw new Error(`no 5.1 extract for build ${build}`);
  return new Set([...SURFACE.command_names_in_both, ...own.command_names]);
};
const NAMES = new Map<WindowsBuild, Set<string>>();

/** An engine command by its name or one of its aliases. */
function engineOf(name: string): [string, EngineCommand] | undefined {
  const n = lower(name);
  return Object.entries(SURFACE.engine_commands).find(([proper, c]) => lower(proper) === n || c.aliases.some((a) => lower(a) === n));
}

/**
 * A Verb-Noun command that 5.1's profile of the build does not have, unless the script defines it or it is of a module
 * the profiles say nothing of (unprofiledNoun: Hyper-V, Containers, HNS, PackageManagement, PowerShellGet).
 */
function missingCommand(build: WindowsBuild, call: CommandCall, functions: string[]): string | undefined {
  if (!/^[A-Za-z]+-[A-Za-z]+$/.test(call.name) || functions.some((f) => lower(f) === lower(call.name))) return undefined;
  const names = NAMES.get(build) ?? NAMES.set(build, namesOf(build)).get(build);
  if (names?.has(lower(call.name)) || unprofiledNoun(build, call.name)) return undefined;
  return `${call.name}: not a command of Windows PowerShell 5.1 on ${build} (PSScriptAnalyzer's profile)`;
}

/** More positional arguments than 5.1's sets take, where 7 takes the rest in a parameter 5.1 lacks. */
function positionalProblem(call: CommandCall): string | undefined {
  const found = engineOf(call.name);
  const shape = call.shape ?? [];
  const most = found?.[1].positional;
  if (!found || most === undefined || shape.includes('@')) return undefined;
  const [proper, c] = found;
  let positional = 0;
  for (let i = 0; i < shape.length; i++) {
    const e = shape[i] as string;
    if (e === '') positional++;
    else if (!e.endsWith(':')) {
      const p = resolveParameter(e.slice(1), c.parameters, c.parameter_aliases);
      if (!(p && c.switches.includes(p)) && shape[i + 1] === '') i++;
    }
  }
  // A parameter that takes the remaining arguments in 7 and exists in 5.1 (Write-Output's InputObject) takes them there.
  const remaining = (call.remaining7 ?? []).filter((r) => c.parameters.includes(r));
  if (positional <= most || remaining.length > 0) return undefined;
  const seven = (call.remaining7 ?? []).map((r) => ` (7 takes the rest in -${r})`).join('');
  return `${proper}: ${positional} positional arguments, Windows PowerShell 5.1 takes at most ${most}${seven}: ${call.text}`;
}

/** A constant value of an enum-typed parameter that the build's enum lacks (`-StartupType AutomaticDelayedStart`). */
function enumProblems(build: WindowsBuild, call: CommandCall): string[] {
  const found = engineOf(call.name);
  if (!found) return [];
  const [proper, c] = found;
  const enums = SURFACE.builds[String(build)]?.enums ?? {};
  return call.parameters.flatMap((p) => {
    const name = resolveParameter(p.name, c.parameters, c.parameter_aliases);
    const type = name ? c.types[name]?.replace(/\[\]$/, '') : undefined;
    const values = type ? enums[type] : undefined;
    if (!values || p.value === null) return [];
    const bad = p.value.split(',').filter((v) => !values.some((e) => lower(e) === lower(v.trim())));
    return bad.map((v) => `${proper} -${name} ${v}: not a value of ${type} in .NET Framework on ${build} (${values.join(', ')})`);
  });
}

/** The intrinsic members 5.1 gives every object (MicrosoftDocs/PowerShell-Docs reference/5.1/.../about_Intrinsic_Members.md). */
const INTRINSIC = new Set(['psbase', 'psadapted', 'psextended', 'psobject', 'pstypenames', 'count', 'length', 'foreach', 'where']);

/** Types whose members are judged: .NET's own (not PowerShell's, whose types the profiles describe by command). */
const judged = (t: string) => t.startsWith('System.') && !t.startsWith('System.Management.Automation.');

/** A member the receiver's .NET Framework type lacks on the build, or a type of .NET's the extract does not have. */
function memberProblem(build: WindowsBuild, m: MemberUse): string | undefined {
  // A command's output is judged only where 5.1 declares one type (Get-Service's ServiceController): a list such as
  // Get-Content's (Byte, String) or Get-ItemProperty's says what it may be, not what this call yields.
  const output = m.command ? (engineOf(m.command)?.[1].output ?? []) : [];
  const types = m.types?.length ? m.types : output.length === 1 ? output : [];
  const candidates = types.filter(judged);
  if (candidates.length === 0 || candidates.length < types.length) return undefined;
  const name = lower(m.member);
  const ets = candidates.flatMap((t) => SURFACE.ets_members[t] ?? []);
  if ((!m.static && (INTRINSIC.has(name) || ets.some((e) => lower(e) === name))) || (m.static && name === 'new')) return undefined;
  const own = SURFACE.builds[String(build)];
  const unknown = candidates.filter((t) => !own?.types[t]);
  if (unknown.length > 0) return `${m.text}: ${unknown.join(', ')} not in the 5.1 extract: add to TYPES in scripts/ps51-reference-data.ts`;
  const has = (t: string) => {
    const data = own?.types[t];
    const side = m.static ? data?.static : data?.instance;
    if (!data?.present || !side) return false;
    if (m.arguments === null) return [...side.properties, ...side.fields].some((p) => lower(p) === name);
    return Object.entries(side.methods).some(([n, arities]) => lower(n) === name && arities.includes(m.arguments as number));
  };
  if (candidates.some(has)) return undefined;
  const what = m.arguments === null ? 'property or field' : `method taking ${m.arguments} argument(s)`;
  return `${m.text}: ${candidates.join(' or ')} has no ${m.static ? 'static' : 'instance'} ${what} ${m.member} in .NET Framework ${own?.framework} (5.1 on ${build})`;
}

/** Everything of one script that 5.1 on `build` lacks beyond syntax and named parameters. */
export function surfaceProblems(build: WindowsBuild, s: ScriptSyntax): string[] {
  const seven = new Set(SURFACE.seven_only_variables);
  return [
    ...s.commands
      .flatMap((c) => [missingCommand(build, c, s.functions) ?? [], positionalProblem(c) ?? [], ...enumProblems(build, c)])
      .flat(),
    ...s.variables.filter((v) => seven.has(lower(v.name))).map((v) => `line ${v.line}: $${v.name} is a variable of PowerShell 6/7 only`),
    ...s.members.flatMap((m) => memberProblem(build, m) ?? []),
  ];
}
