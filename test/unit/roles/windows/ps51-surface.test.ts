// The 5.1 guard beyond syntax (test/support/ps51-surface.ts, with callProblems for named parameters): each thing
// PowerShell 7 has that Windows PowerShell 5.1 lacks is caught on both builds, from data (PSScriptAnalyzer's 5.1
// profiles, .NET Framework's reference assemblies, the about_ pages: test/fixtures/windows/ps51-surface.md), and
// what 5.1 does have in its place is not. That every script the roles emit passes is in ps51.test.ts.

import { beforeAll, describe, expect, it } from 'vitest';
import type { WindowsBuild } from '../../../../src/sim/windows/windows-state.js';
import { callProblems } from '../../../support/ps51-reference.js';
import { surfaceProblems } from '../../../support/ps51-surface.js';
import { analyzeScripts, type ScriptSyntax } from '../../../support/ps51-syntax.js';

const BUILDS: WindowsBuild[] = [14393, 17763];

/** Each item: a 7-only use, what the finding must say, and the 5.1 form beside it that must pass. */
const ITEMS: [label: string, seven: string, finding: RegExp, fiveOne: string][] = [
  ['Remove-Service (6.0)', 'Remove-Service -Name docker', /Remove-Service: not a command/, "& sc.exe delete 'docker'"],
  [
    'Join-Path with -AdditionalChildPath',
    'Join-Path -Path C:\\a -ChildPath b -AdditionalChildPath c',
    /-AdditionalChildPath: not a parameter/,
    'Join-Path -Path C:\\a -ChildPath b',
  ],
  [
    'Join-Path with a third positional child',
    'Join-Path C:\\a b c',
    /3 positional arguments.*at most 2/,
    "Join-Path C:\\a b -Resolve; Write-Output 'a' 'b' 'c'",
  ],
  [
    'Test-Connection -TcpPort',
    'Test-Connection -TargetName 10.0.0.1 -TcpPort 443',
    /-TcpPort: not a parameter/,
    'Test-Connection -ComputerName 10.0.0.1 -Count 1 -Quiet',
  ],
  ['Get-Date -UnixTimeSeconds', 'Get-Date -UnixTimeSeconds 0', /-UnixTimeSeconds: not a parameter/, "Get-Date -Format 'yyyy-MM-dd'"],
  [
    'Invoke-RestMethod -SkipCertificateCheck',
    'Invoke-RestMethod -Uri https://a -SkipCertificateCheck',
    /-SkipCertificateCheck: not a parameter/,
    'Invoke-RestMethod -Uri https://a -UseBasicParsing',
  ],
  ['Get-Error (7.0)', 'Get-Error -Newest 1', /Get-Error: not a command/, '$Error[0] | Format-List * -Force'],
  ['$IsWindows', 'if ($IsWindows) { 1 }', /\$IsWindows is a variable of PowerShell 6\/7 only/, "if ($env:OS -eq 'Windows_NT') { 1 }"],
  ['$IsLinux', 'if ($IsLinux) { 1 }', /\$IsLinux is a variable/, '$PSVersionTable.PSVersion'],
  ['$IsMacOS', '$global:IsMacOS', /\$IsMacOS is a variable/, '$global:ErrorActionPreference'],
  ['$IsCoreCLR', 'Write-Output $IsCoreCLR', /\$IsCoreCLR is a variable/, 'Write-Output $PSEdition'],
  ['$PSStyle', '$PSStyle.OutputRendering = "PlainText"', /\$PSStyle is a variable/, '$Host.UI.RawUI'],
  [
    'Get-Service .BinaryPathName',
    '(Get-Service docker).BinaryPathName',
    /BinaryPathName in \.NET Framework/,
    '(Get-Service docker).Status; (Get-Service docker).Name',
  ],
  [
    '.BinaryPathName through a variable',
    '$s = Get-Service docker\n$s.BinaryPathName',
    /ServiceController has no instance property or field BinaryPathName/,
    '$s = Get-Service docker\n$s.ServiceName',
  ],
  [
    '-StartupType AutomaticDelayedStart',
    'Set-Service -Name docker -StartupType AutomaticDelayedStart',
    /AutomaticDelayedStart: not a value of System\.ServiceProcess\.ServiceStartMode/,
    'Set-Service -Name docker -StartupType Automatic',
  ],
  [
    '[ServiceStartMode]::AutomaticDelayedStart',
    '[System.ServiceProcess.ServiceStartMode]::AutomaticDelayedStart',
    /no static property or field AutomaticDelayedStart/,
    '[System.ServiceProcess.ServiceStartMode]::Automatic',
  ],
  [
    '[IO.Path]::GetRelativePath',
    "[IO.Path]::GetRelativePath('C:\\a', 'C:\\a\\b')",
    /System\.IO\.Path has no static method taking 2 argument\(s\) GetRelativePath/,
    "[IO.Path]::Combine('C:\\a', 'b')",
  ],
  [
    'String.Contains(string, StringComparison)',
    "$n = 'vEthernet'\n$n.Contains('eth', [StringComparison]::OrdinalIgnoreCase)",
    /System\.String has no instance method taking 2 argument\(s\) Contains/,
    "$n = 'vEthernet'\n$n.IndexOf('eth', [StringComparison]::OrdinalIgnoreCase) -ge 0; $n.Contains('eth')",
  ],
  [
    '[Convert]::ToHexString',
    '[Convert]::ToHexString([byte[]](1, 2))',
    /System\.Convert has no static method taking 1 argument\(s\) ToHexString/,
    '[BitConverter]::ToString([byte[]](1, 2)); [Convert]::ToBase64String([byte[]](1, 2))',
  ],
];

const problems = (build: WindowsBuild, s: ScriptSyntax) => [
  ...surfaceProblems(build, s),
  ...s.commands.flatMap((c) => callProblems(build, c)),
];

describe('the 5.1 guard catches what 5.1 lacks beyond syntax', () => {
  let seven: ScriptSyntax[] = [];
  let fiveOne: ScriptSyntax[] = [];
  beforeAll(() => {
    const all = analyzeScripts([...ITEMS.map((i) => i[1]), ...ITEMS.map((i) => i[3])]);
    seven = all.slice(0, ITEMS.length);
    fiveOne = all.slice(ITEMS.length);
  }, 120_000);

  it.each(ITEMS.map((item, i) => [item[0], i] as const))('%s: caught on 2016 and 2019, its 5.1 form is not', (_, i) => {
    const [, , finding] = ITEMS[i] as (typeof ITEMS)[number];
    for (const build of BUILDS) {
      expect(
        problems(build, seven[i] as ScriptSyntax).some((p) => finding.test(p)),
        `${build}: ${problems(build, seven[i] as ScriptSyntax)}`,
      ).toBe(true);
      expect(problems(build, fiveOne[i] as ScriptSyntax)).toEqual([]);
    }
  });

  it('a .NET type the extract does not have is refused by name, not passed', () => {
    const [s] = analyzeScripts(['[System.Text.StringBuilder]::new().Append("x")', '[System.Xml.XmlDocument]::new()']) as ScriptSyntax[];
    expect(surfaceProblems(14393, s as ScriptSyntax)).toEqual([]);
    const [t] = analyzeScripts(["$x = [System.Text.StringBuilder]'a'\n$x.Append('b')"]) as ScriptSyntax[];
    expect(surfaceProblems(14393, t as ScriptSyntax)).toEqual([
      "$x.Append('b'): System.Text.StringBuilder not in the 5.1 extract: add to TYPES in scripts/ps51-reference-data.ts",
    ]);
  });

  it('the data differs by build where Windows does: SecurityProtocolType.SystemDefault came with .NET 4.7', () => {
    const [s] = analyzeScripts([
      '[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::SystemDefault',
    ]) as ScriptSyntax[];
    expect(BUILDS.map((b) => surfaceProblems(b, s as ScriptSyntax).length)).toEqual([1, 0]);
  });
});
