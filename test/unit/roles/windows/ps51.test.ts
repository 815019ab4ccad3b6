// Real nodes run Windows PowerShell 5.1 (powershell.exe); the lab and these tests have PowerShell 7.6. Every script
// the Windows roles can emit (test/support/windows-scripts.ts) goes through the real parser in one pwsh process:
// no parse error, none of 7's syntax in the AST, every cmdlet's named parameters as 5.1 has them on the build the
// script is sent to (PSScriptAnalyzer's profiles), nothing else 5.1 lacks (7-only commands, variables, enum values,
// .NET members: ps51-surface.ts, its own tests in ps51-surface.test.ts), and every file the roles write with an explicit encoding whose
// bytes 5.1 and 7 agree on. The detector is shown to flag each 7-only construct, so the check can fail.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POWERSHELL_PRELUDE } from '../../../../src/dataplane/wire.js';
import { windowsDeconfigure } from '../../../../src/roles/windows/deconfigure.js';
import { CONTAINERS_INSTALLED, ELEVATED, serviceStatus } from '../../../../src/roles/windows/queries.js';
import { stdinOf, writeFromStdin } from '../../../../src/roles/windows/write-from-stdin.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { WindowsBuild } from '../../../../src/sim/windows/windows-state.js';
import { isCmdlet } from '../../../support/cmdlet-scan.js';
import { callProblems, encodingOf, encodingProblem, profiled, writerOf } from '../../../support/ps51-reference.js';
import { surfaceProblems } from '../../../support/ps51-surface.js';
import { analyzeScripts, type CommandCall, type ScriptSyntax } from '../../../support/ps51-syntax.js';
import { pwshPath } from '../../../support/pwsh.js';
import { runInRealPwsh } from '../../../support/real-pwsh-host.js';
import { type EmittedScript, emittedWindowsScripts } from '../../../support/windows-scripts.js';

/**
 * Fewer distinct scripts than this means the enumeration lost branches (it found 150 when written: 2 builds,
 * 2 Contrail versions, fresh and drifted hosts, every set on no facts).
 */
const PLAUSIBLE = 120;

let emitted: EmittedScript[] = [];
let syntax: ScriptSyntax[] = [];
beforeAll(async () => {
  emitted = await emittedWindowsScripts();
  syntax = analyzeScripts(emitted.map((e) => e.script));
}, 660_000);

/** Each script's command calls, with the builds the script is sent to. */
const calls = () => emitted.flatMap((e, i) => (syntax[i]?.commands ?? []).map((call) => ({ call, builds: e.builds })));

/**
 * A native program's stderr redirected (2>&1, 2> $null, *>) turns each line into an error record; Windows
 * PowerShell 5.1 applies $ErrorActionPreference to them, and the wire's prelude sets Stop, so the first line ends the
 * script. PowerShell 7.2 and later do not (PowerShell/PowerShell#13361), so the lab would not show it.
 */
const nativeStderrProblems = (s: ScriptSyntax) =>
  s.stderrRedirections.filter((r) => !isCmdlet(r.command)).map((r) => `native stderr redirected: ${r.text}`);

/**
 * Windows PowerShell 5.1 builds a native program's command line without escaping an embedded `"`, drops an empty
 * argument, and quotes a spaced argument ending in a backslash so that the backslash escapes the closing quote
 * (PowerShell/PowerShell#1995). PowerShell 7.3 and later pass each argument whole on Linux (the lab), so it would not
 * show. An argument like that must go another way (a file, stdin, Start-Process -ArgumentList with its own quoting).
 */
const legacyArgumentProblems = (s: ScriptSyntax) =>
  s.legacyArguments.map((a) => `5.1 mangles this argument to ${a.command}: ${a.argument}`);

const excerpt = (script: string) => script.split('\n').slice(0, 3).join(' | ').slice(0, 200);

describe('every script the Windows roles emit is Windows PowerShell 5.1', () => {
  it('parses in the real parser with no error and no 7-only construct', () => {
    console.info(`windows-ps51: ${emitted.length} distinct scripts the Windows roles emit, parsed by pwsh ${pwshPath()}`);
    expect(emitted.length).toBeGreaterThan(PLAUSIBLE);
    const problems = emitted.flatMap((e, i) => {
      const s = syntax[i] as ScriptSyntax;
      return [
        ...s.errors.map((err) => `${err.line}:${err.column}: ${err.message} in: ${excerpt(e.script)}`),
        ...s.sevenOnly.map((f) => `${f.line}: ${f.construct} (7 only): ${f.text}`),
      ];
    });
    expect(problems).toEqual([]);
  });

  it('reaches the node commands, the shared queries and deconfigure (the enumeration lost none of them)', () => {
    const all = emitted.map((e) => e.script).join('\n');
    const reached = {
      bootId: all.includes('LastBootUpTime'),
      reboot: all.includes('Restart-Computer -Force'),
      readiness: all.includes("Write-Output 'ready'"),
      containersInstalled: all.includes(CONTAINERS_INSTALLED),
      elevated: all.includes(ELEVATED),
      serviceStatus: all.includes(serviceStatus('docker')),
      deconfigure: windowsDeconfigure().resources.every((r) => r.facts.every((f) => !f.ps || all.includes(f.ps))),
      prelude: emitted.some((e) => e.script === POWERSHELL_PRELUDE),
    };
    expect(Object.entries(reached).filter(([, yes]) => !yes)).toEqual([]);
  });

  it("calls every cmdlet with named parameters 5.1 has on the build it is sent to (PSScriptAnalyzer's profiles)", () => {
    const judged = new Set<string>();
    const problems = new Set<string>();
    for (const { call, builds } of calls())
      for (const build of builds) {
        if (profiled(build, call.name)) judged.add(call.name.toLowerCase());
        for (const p of callProblems(build, call)) problems.add(p);
      }
    expect([...problems]).toEqual([]);
    // The profiles have most of what the roles call (the .md lists the Hyper-V, Containers, HNS and package cmdlets
    // they lack): judging none would mean the lookup broke.
    expect(judged.size).toBeGreaterThan(25);
  });

  it('uses no command, positional argument, enum value, variable or .NET member 5.1 lacks on its build (ps51-surface.ts)', () => {
    const problems = new Set(emitted.flatMap((e, i) => e.builds.flatMap((b) => surfaceProblems(b, syntax[i] as ScriptSyntax))));
    expect([...problems]).toEqual([]);
    // The member check judged something: the roles read services and strings through .NET members.
    expect(syntax.flatMap((s) => s.members.filter((m) => (m.types ?? []).length > 0 || m.command)).length).toBeGreaterThan(0);
  });

  it('writes no file without an explicit -Encoding 5.1 accepts, and redirects nothing to a file', () => {
    const writers = calls().filter(({ call }) => writerOf(call));
    expect(writers.length).toBeGreaterThan(0);
    const problems = [
      ...writers.filter(({ call }) => encodingOf(call) === undefined).map(({ call }) => `no -Encoding: ${call.text}`),
      ...calls().flatMap(({ call }) => encodingProblem(call) ?? []),
      ...syntax.flatMap((s) => s.redirections.map((r) => `a redirection writes a file as Out-File would, in 5.1's UTF-16: ${r}`)),
    ];
    expect(problems).toEqual([]);
  });

  it("redirects no native program's stderr (5.1 stops the script at its first line under ErrorActionPreference Stop)", () => {
    expect(syntax.flatMap(nativeStderrProblems)).toEqual([]);
  });

  it('passes no native program an argument 5.1 would mangle', () => {
    expect(syntax.flatMap(legacyArgumentProblems)).toEqual([]);
  });
});

const isByte = (encoding: string) => encoding.toLowerCase() === 'byte';

/**
 * The bytes Windows PowerShell 5.1 writes for `value` with -Encoding `encoding` and -NoNewline, from its pages:
 * Set-Content.md (reference/5.1: "Ascii Uses ASCII (7-bit) character set") and about_Character_Encoding ("In
 * Windows PowerShell, any Unicode encoding, except UTF7, always creates a BOM"). .NET's ASCII encoding writes '?'
 * for what is not 7-bit. The encodings not modelled here are refused by name.
 */
function windowsPowerShellBytes(encoding: string, value: string): Buffer {
  const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();
  switch (encoding.toLowerCase()) {
    case 'ascii':
      return Buffer.from([...value].map((ch) => ((ch.codePointAt(0) as number) < 0x80 ? (ch.codePointAt(0) as number) : 0x3f)));
    case 'utf8':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(value, 'utf8')]);
    case 'unicode':
    case 'string':
    case 'unknown':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(value, 'utf16le')]);
    case 'bigendianunicode':
      return Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(value)]);
    default:
      throw new Error(`the bytes 5.1 writes for -Encoding ${encoding} are not modelled here`);
  }
}

describe('the encodings the roles choose write the same bytes in 5.1 and 7', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gc-ps51-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** What real pwsh 7.6 writes for each [encoding, value]: Set-Content with it and -NoNewline, in one process. */
  function pwshBytes(writes: [encoding: string, value: string][]): string[] {
    const script = [
      '$writes = $env:GC_WRITES | ConvertFrom-Json',
      'for ($i = 0; $i -lt $writes.Count; $i++) {',
      '  Set-Content -LiteralPath (Join-Path $env:GC_DIR $i) -Value $writes[$i][1] -Encoding $writes[$i][0] -NoNewline',
      '}',
    ].join('\n');
    execFileSync(pwshPath(), ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', script], {
      env: { ...process.env, GC_DIR: dir, GC_WRITES: JSON.stringify(writes) },
    });
    return writes.map((_, i) => readFileSync(join(dir, String(i))).toString('hex'));
  }

  it('each -Encoding the roles emit, on what they write and on text beyond ASCII', () => {
    const written = calls()
      .map(({ call }) => call)
      .filter((c): c is CommandCall => writerOf(c) !== undefined);
    // A writer without -Encoding fails the test above; here, each text encoding the roles chose (Byte: the next test).
    const encodings = [...new Set(written.flatMap((c) => encodingOf(c) ?? []))].filter((e) => !isByte(e));
    expect(encodings.length).toBeGreaterThan(0);
    // A constant -Value as the roles write it, and a probe past 7 bits: the two versions must still agree.
    const values = [
      ...new Set(written.flatMap((c) => c.parameters.filter((p) => p.name === 'Value' && p.value !== null).map((p) => p.value as string))),
    ];
    expect(values.length).toBeGreaterThan(0);
    const writes = encodings.flatMap((encoding) => [...values, 'café'].map((value): [string, string] => [encoding, value]));
    const seven = pwshBytes(writes);
    expect(writes.map(([encoding, value], i) => ({ encoding, value, bytes: seven[i] }))).toEqual(
      writes.map(([encoding, value]) => ({ encoding, value, bytes: windowsPowerShellBytes(encoding, value).toString('hex') })),
    );
  });

  it('-Encoding Byte is only the stdin writer, and the lab writes what it is sent byte for byte, as 5.1 does', async () => {
    // 5.1's Set-Content takes Byte (reference/5.1 Set-Content.md: "Byte: Encodes a set of characters into a sequence
    // of bytes"); 7 has no such value (6.0 replaced it with -AsByteStream, reference/7.x Set-Content.md), so pwsh 7's
    // own Set-Content cannot stand for it here. In the lab a Windows path's Set-Content is the Windows module's, with
    // 5.1's parameters (src/sim/windows/real-pwsh/), which writes to the simulated host: that is what is checked.
    const bytes = calls()
      .map(({ call }) => call)
      .filter((c) => writerOf(c) !== undefined && isByte(encodingOf(c) ?? ''));
    expect(bytes.length).toBeGreaterThan(0);
    const [, form] = writeFromStdin('C:\\x').split(' -Encoding ');
    expect(bytes.filter((c) => !c.text.endsWith(` -Encoding ${form}`)).map((c) => c.text)).toEqual([]);
    const host = WindowsHost.fresh({ hostname: 'w' });
    host.fs.mkdirp('C:\\Windows\\Temp');
    const probe = Buffer.concat([Buffer.from('café\r\n€', 'utf8'), Buffer.from([0, 0xff, 0xfe, 0x80])]);
    const r = await runInRealPwsh(host, writeFromStdin('C:\\Windows\\Temp\\probe.bin'), stdinOf(probe));
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(Buffer.from(host.fs.read('C:\\Windows\\Temp\\probe.bin') ?? '', 'latin1').toString('hex')).toBe(probe.toString('hex'));
  }, 120_000);

  it('an encoding where 5.1 and 7 differ is caught: UTF8 (5.1 writes a BOM, 7 does not)', () => {
    const [utf8, ascii] = pwshBytes([
      ['UTF8', '{}'],
      ['ASCII', '{}'],
    ]);
    expect(utf8).not.toBe(windowsPowerShellBytes('UTF8', '{}').toString('hex'));
    expect(ascii).toBe(windowsPowerShellBytes('ASCII', '{}').toString('hex'));
  });
});

describe('the 5.1 checks can fail', () => {
  /** Snippets of 7-only syntax, each of which the detector must flag; and 5.1 look-alikes it must not. */
  const SEVEN_ONLY = [
    '$a ? 1 : 2',
    'Get-Item x && Write-Output y',
    'Get-Item x || Write-Output y',
    "$a ?? 'default'",
    "$a ??= 'default'",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: PowerShell's ${a}, not a template
    '${a}?.Length',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: PowerShell's ${a}, not a template
    '${a}?.Trim()',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: PowerShell's ${a}, not a template
    '${a}?[0]',
    '1..3 | ForEach-Object -Parallel { $_ }',
    '1..3 | % -Pa { $_ } -ThrottleLimit 2',
    'function f { process { } clean { } }',
    'Start-Sleep 1 &',
    '"`u{2013}"',
    '"`e[0m"',
  ];
  const FIVE_ONE = [
    '$a = if ($x) { 1 } else { 2 }',
    '1..3 | ForEach-Object -Process { $_ }',
    "$a.Length; $h['k']; '?'; \"a ? b\"",
    'cmd.exe /c "a && b"',
    "'`u{2013}'",
    'if ($x -eq $null -or $y) { 1 }',
  ];
  /** Arguments to native programs: the first three 5.1 mangles, the last two it passes whole (or to a cmdlet). */
  const ARGUMENTS = [
    `& 'nssm' set svc AppParameters '--config="C:\\a b"'`,
    "& 'nssm' set svc AppParameters ''",
    "& 'tool' 'C:\\a b\\'",
    "& 'tool' 'C:\\ab\\' 'a b'",
    "Write-Output '' 'a\"b'",
  ];
  /** Error streams redirected: of two native programs, then of a cmdlet. */
  const STDERR = ["& 'docker' ps 2>&1", 'sc.exe qc kubelet 2> $null', 'Get-Service x 2>&1'];
  let flagged: ScriptSyntax[] = [];
  let clean: ScriptSyntax[] = [];
  let broken: ScriptSyntax | undefined;
  let argumentsFound: ScriptSyntax[] = [];
  let stderrFound: ScriptSyntax[] = [];
  beforeAll(() => {
    // One pwsh for every snippet: each group is its slice of the answer.
    const groups = [SEVEN_ONLY, FIVE_ONE, ['if ('], ARGUMENTS, STDERR];
    const all = analyzeScripts(groups.flat());
    const slices = groups.map((g, i) => {
      const start = groups.slice(0, i).reduce((n, h) => n + h.length, 0);
      return all.slice(start, start + g.length);
    });
    [flagged, clean, [broken], argumentsFound, stderrFound] = slices as [
      ScriptSyntax[],
      ScriptSyntax[],
      ScriptSyntax[],
      ScriptSyntax[],
      ScriptSyntax[],
    ];
  }, 120_000);

  it('each 7-only construct is flagged, no 5.1 construct is, and a syntax error is reported', () => {
    expect(SEVEN_ONLY.filter((_, i) => (flagged[i]?.sevenOnly.length ?? 0) === 0)).toEqual([]);
    expect(FIVE_ONE.filter((_, i) => (clean[i]?.sevenOnly.length ?? 1) > 0)).toEqual([]);
    expect(clean.flatMap((c) => c.errors)).toEqual([]);
    expect(broken?.errors.map((e) => e.message)).toEqual(["Missing condition in if statement after 'if ('."]);
  });

  it('an argument 5.1 would pass mangled to a native program is caught, to a cmdlet it is not', () => {
    expect(argumentsFound.map((s) => legacyArgumentProblems(s).length)).toEqual([1, 1, 1, 0, 0]);
  });

  it("a native program's stderr redirected is caught, a cmdlet's is not", () => {
    expect(stderrFound.map((s) => nativeStderrProblems(s).length)).toEqual([1, 1, 0]);
  });

  it("a parameter, a set or an encoding 5.1 lacks is refused by the build's profile", () => {
    const call = (name: string, ...parameters: [string, string | null][]): CommandCall => ({
      name,
      text: name,
      parameters: parameters.map(([n, value]) => ({ name: n, argument: value, value })),
    });
    expect(callProblems(17763, call('ConvertFrom-Json', ['AsHashtable', null]))).toEqual([
      'ConvertFrom-Json -AsHashtable: not a parameter of ConvertFrom-Json in Windows PowerShell 5.1 on 17763',
    ]);
    const json = call('ConvertTo-Json', ['Compress', null], ['EscapeHandling', 'Default']);
    expect(callProblems(14393, json)).toEqual([
      'ConvertTo-Json -EscapeHandling: not a parameter of ConvertTo-Json in Windows PowerShell 5.1 on 14393',
    ]);
    // -State came to Get-NetRoute with 2019's NetTCPIP (the profiles' differences).
    const route = call('Get-NetRoute', ['State', 'Alive']);
    expect([14393, 17763].map((b) => callProblems(b as WindowsBuild, route).length)).toEqual([1, 0]);
    expect(callProblems(17763, call('Set-Content', ['Path', 'a'], ['LiteralPath', 'b']))[0]).toMatch(/no parameter set/);
    expect(encodingProblem(call('Set-Content', ['LiteralPath', 'a'], ['Encoding', 'utf8NoBOM']))).toMatch(/5\.1 accepts only/);
    expect(encodingProblem(call('Set-Content', ['LiteralPath', 'a'], ['Enc', 'ascii']))).toBeUndefined();
    // Common parameters and their aliases are every cmdlet's.
    expect(callProblems(14393, call('Get-Service', ['Name', 'x'], ['EA', 'SilentlyContinue']))).toEqual([]);
  });
});
