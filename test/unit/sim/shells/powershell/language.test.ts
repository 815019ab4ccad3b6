// The simulated PowerShell's language against Windows PowerShell 5.1, one behaviour per test, each with the
// PowerShell-Docs page (MicrosoftDocs/PowerShell-Docs, reference/5.1/Microsoft.PowerShell.Core/About) that says so.
// The interpreter runs here over a small host of its own, so these tests show the language, not a Windows model.

import { describe, expect, it } from 'vitest';
import { out, run, TestHost } from './ps-harness.js';

describe('about_Try_Catch_Finally', () => {
  it('finally runs after try, after catch, and when the error is not caught at all', () => {
    expect(out("try { 'a' } finally { 'f1' }; try { throw 'x' } catch { 'c' } finally { 'f2' }")).toEqual(['a', 'f1', 'c', 'f2']);
    const uncaught = run("try { 'a'; throw 'boom' } finally { 'cleanup' }; 'never'");
    expect(uncaught.stdout).toBe('a\r\ncleanup\r\n');
    expect(uncaught.stderr).toMatch(/^boom\r\n/);
    expect(uncaught.exitCode).toBe(1);
  });

  it('finally runs when exit leaves the catch block', () => {
    expect(run("try { throw 'x' } catch { exit 4 } finally { 'finally ran' }")).toMatchObject({ stdout: 'finally ran\r\n', exitCode: 4 });
  });

  it('catch [T] catches T and types derived from it; the first matching catch wins', () => {
    expect(
      out(
        "try { [int]'abc' } catch [System.Management.Automation.CommandNotFoundException] { 'not found' } catch [System.Management.Automation.RuntimeException] { 'runtime' } catch { 'any' }",
      ),
    ).toEqual(['runtime']);
    expect(
      out(
        "try { Get-HnsNetwork } catch [System.Management.Automation.CommandNotFoundException] { 'not found: ' + $_.FullyQualifiedErrorId }",
      ),
    ).toEqual(['not found: CommandNotFoundException']);
    expect(
      out("try { Get-Thing nope -ErrorAction Stop } catch [System.Management.Automation.SessionStateException] { 'base type' }"),
    ).toEqual(['base type']);
  });

  it('an unmatched typed catch lets the error through', () => {
    const r = run("try { Get-HnsNetwork } catch [System.IO.IOException] { 'wrong catch' }; 'next statement'");
    expect(r.stdout).toBe('next statement\r\n');
    expect(r.stderr).toMatch(
      /^Get-HnsNetwork : The term 'Get-HnsNetwork' is not recognized as the name of a cmdlet, function, script file, or operable program\./,
    );
  });

  it('a non-terminating error is not caught; -ErrorAction Stop makes it terminating', () => {
    expect(run("try { Get-Thing nope; 'went on' } catch { 'caught' }")).toMatchObject({ stdout: 'went on\r\n', exitCode: 0 });
    expect(out("try { Get-Thing nope -ErrorAction Stop; 'no' } catch { 'caught: ' + $_.Exception.Message }")).toEqual([
      "caught: Cannot find any thing with name 'nope'.",
    ]);
  });

  it('throw $_ rethrows the same error; a bare throw in catch too', () => {
    const r = run("try { try { [int]'x' } catch { throw } } catch { $_.FullyQualifiedErrorId }");
    expect(r.stdout).toBe('InvalidCastFromStringToInteger\r\n');
  });
});

describe('about_Automatic_Variables', () => {
  it('$? is False after a failed command and True after a successful one', () => {
    expect(out("Get-Thing nope 2>$null; $?; Get-Thing here > $null; $?; tool 3; $?; 'x' > $null; $?")).toEqual([
      'False',
      'True',
      'out',
      'False',
      'True',
    ]);
  });

  it("powershell.exe exits with $? of the script's end: 1 after an error even -ErrorAction SilentlyContinue hid (ConsoleHost.cs)", () => {
    expect(run('Get-Thing nope -ErrorAction SilentlyContinue')).toEqual({ stdout: '', stderr: '', exitCode: 1 });
    expect(run("if (Get-Thing nope -ErrorAction SilentlyContinue) { 'found' }")).toEqual({ stdout: '', stderr: '', exitCode: 1 });
    expect(run('Get-Thing nope -ErrorAction SilentlyContinue\nexit 0')).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(run("Get-Thing nope -ErrorAction SilentlyContinue; 'then fine'")).toEqual({ stdout: 'then fine\r\n', stderr: '', exitCode: 0 });
  });

  it('$Error holds every error, newest first', () => {
    expect(
      out(
        "Get-Thing first 2>$null; try { [int]'x' } catch { }; $Error.Count; $Error[0].FullyQualifiedErrorId; $Error[1].Exception.Message",
      ),
    ).toEqual(['2', 'InvalidCastFromStringToInteger', "Cannot find any thing with name 'first'."]);
  });

  it('$Matches holds the groups of the last successful scalar -match, by number and by name', () => {
    expect(
      out("'vhost0: 10.0.0.5' -match '^(\\w+): (?<ip>[\\d.]+)$'; $Matches[0]; $Matches[1]; $Matches.ip; 'x' -match 'y'; $Matches.ip"),
    ).toEqual(['True', 'vhost0: 10.0.0.5', 'vhost0', '10.0.0.5', 'False', '10.0.0.5']);
  });

  it('$LASTEXITCODE is the exit code of the last program', () => {
    expect(out('tool 5; $LASTEXITCODE; tool 0; $LASTEXITCODE')).toEqual(['out', '5', 'out', '0']);
  });
});

describe('about_Type_Conversion: casts', () => {
  it("[int]'abc' is a terminating error (InvalidCastFromStringToInteger), never NaN", () => {
    const r = run("$n = [int]'abc'; 'after'; $null -eq $n");
    expect(r.stderr).toMatch(/^Cannot convert value "abc" to type "System.Int32". Error: "Input string was not in a correct format."\r\n/);
    expect(r.stderr).toMatch(/FullyQualifiedErrorId : InvalidCastFromStringToInteger/);
    expect(r.stdout).toBe('after\r\nTrue\r\n');
  });

  it('[int] trims, reads hex, and rounds half to even; arithmetic on a non-number string fails the same way', () => {
    expect(out("[int]' 12 '; [int]'0x10'; [int]2.5; [int]3.5; '5' - 2; [string[]](1, 2) -join '+'")).toEqual([
      '12',
      '16',
      '2',
      '4',
      '3',
      '1+2',
    ]);
    expect(run("'abc' - 1").stderr).toMatch(/Cannot convert value "abc" to type "System.Int32"/);
  });
});

describe('about_Comparison_Operators', () => {
  it('-in and -notin', () => {
    expect(out("'b' -in 'a','b'; 'B' -in 'a','b'; 'c' -notin 'a','b'; 'a' -notin 'a','b'; 3 -in 1..3")).toEqual([
      'True',
      'True',
      'True',
      'False',
      'True',
    ]);
  });

  it('-replace is a regex with $1 and ${name} substitutions, case-insensitive unless -creplace', () => {
    expect(
      out(
        `'Ethernet0 2' -replace '(\\w+)(\\d) (\\d)', '$1-$3$2'; 'ABC' -replace 'b', 'x'; 'ABC' -creplace 'b', 'x'; 'k=v' -replace '(?<k>\\w)=(?<v>\\w)', '\${v}=\${k}'; 'a.b' -replace '\\.'`,
      ),
    ).toEqual(['Ethernet-20', 'AxC', 'ABC', 'v=k', 'ab']);
  });

  it('a comparison with a collection on the left filters it', () => {
    expect(out("(1, 2, 3, 2 -eq 2).Count; ('ab', 'cd' -match 'c')")).toEqual(['2', 'cd']);
  });
});

describe('about_Operators', () => {
  it('-f formats with indexes, alignment and N, D, X formats', () => {
    expect(out("'{0}-{1:D3}|{2,5}|{2,-5}|{3:N2}|{4:X}|{{x}}' -f 'a', 7, 'b', 1234.5, 255")).toEqual(['a-007|    b|b    |1,234.50|FF|{x}']);
    expect(run("'{1}' -f 'a'").stderr).toMatch(/Error formatting a string: Index \(zero based\) must be greater than or equal to zero/);
  });

  it('ranges and arithmetic', () => {
    expect(out("(1..4) -join ','; 7 % 3; 'ab' * 2; 10 / 4")).toEqual(['1,2,3,4', '1', 'abab', '2.5']);
    expect(run('1 / 0').stderr).toMatch(/^Attempted to divide by zero\./);
  });
});

describe('about_Split', () => {
  it('-split is a regex split; a maximum leaves the rest in the last part; unary -split splits on whitespace', () => {
    expect(
      out("('a,b,,c' -split ',').Count; ('a1b2c' -split '\\d', 2)[1]; (-split '  a  b ') -join '|'; ('a,b' -split '(,)') -join '|'"),
    ).toEqual(['4', 'b2c', 'a|b', 'a|,|b']);
  });
});

describe('about_Foreach, about_For, about_While, about_Do, about_Break, about_Continue', () => {
  it('foreach, for, while, do/while and do/until loop; break and continue', () => {
    expect(out('foreach ($i in 1..5) { if ($i -eq 2) { continue }; if ($i -eq 4) { break }; $i }')).toEqual(['1', '3']);
    expect(out('for ($i = 0; $i -lt 3; $i++) { "f$i" }')).toEqual(['f0', 'f1', 'f2']);
    expect(out('$n = 3; while ($n -gt 0) { $n; $n-- }')).toEqual(['3', '2', '1']);
    expect(out("$n = 0; do { $n++ } while ($n -lt 3); $n; do { 'once' } until ($true)")).toEqual(['3', 'once']);
  });
});

describe('about_Switch', () => {
  it('every matching clause runs; default only when none did; break stops, continue takes the next item', () => {
    expect(
      out("switch ('a', 'b', 'c') {\n 'a' { 'A' }\n { $_ -in 'a','b' } { 'ab' }\n 'c' { 'C'; break }\n default { 'none' }\n}"),
    ).toEqual(['A', 'ab', 'ab', 'C']);
    expect(out("switch (1, 2) {\n 1 { 'one'; continue }\n default { 'other' }\n}")).toEqual(['one', 'other']);
  });

  it('-Regex sets $Matches; -Wildcard matches wildcards', () => {
    expect(
      out(
        "switch -Regex ('ver=5.1') {\n '^ver=(\\d+)' { $Matches[1] }\n}; switch -Wildcard ('Ethernet0') {\n 'Eth*' { 'eth' }\n 'vEth*' { 'veth' }\n}",
      ),
    ).toEqual(['5', 'eth']);
  });
});

describe('about_Functions, about_Return', () => {
  it('param() binds by name, by position, switches and defaults; the rest goes to $args', () => {
    const script = [
      'function Get-Label {',
      '  param([string]$Name, [int]$Count = 2, [switch]$Loud)',
      '  $label = "$Name x$Count"',
      '  if ($Loud) { $label.ToUpper() } else { $label }',
      '}',
      'Get-Label -Name a',
      'Get-Label b 5 -Loud',
      "Get-Label -N c -Count '7'",
      'function Echo-Args($first) { "$first / $($args -join \',\')" }',
      'Echo-Args 1 2 3',
    ].join('\n');
    expect(out(script)).toEqual(['a x2', 'B X5', 'c x7', '1 / 2,3']);
  });

  it('a mandatory parameter that is missing is an error (no prompt with -NonInteractive)', () => {
    const r = run("function f {\n  param([Parameter(Mandatory = $true)][string]$Name)\n  $Name\n}\nf; 'after'");
    expect(r.stderr).toMatch(/Cannot process command because of one or more missing mandatory parameters: Name\./);
    expect(r.stdout).toBe('after\r\n');
  });

  it('return writes its value and leaves; everything written before it is output too', () => {
    expect(out("function f { 'a'; return 'b'; 'c' }\n$r = f; $r -join ','; $r.Count")).toEqual(['a,b', '2']);
    expect(out('function f { foreach ($i in 1..5) { if ($i -eq 3) { return "r$i" }; $i } }\n(f) -join \',\'')).toEqual(['1,2,r3']);
    expect(out('foreach ($x in 1..3) { $x; if ($x -eq 2) { exit 7 } }')).toEqual(['1', '2']);
  });

  it('variables set in a function stay in it unless $script:', () => {
    expect(out("$x = 'outer'; function f { $x = 'inner'; $script:y = 'set' }\nf; $x; $y")).toEqual(['outer', 'set']);
  });
});

describe('about_Redirection', () => {
  it('2>&1 puts errors into the output as ErrorRecords', () => {
    const r = run('$all = Get-Thing nope 2>&1; $all.FullyQualifiedErrorId; "[$all]"');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe("NoThingFound,Get-Thing\r\n[Cannot find any thing with name 'nope'.]\r\n");
  });

  it('2>$null hides errors (they still reach $Error); *>$null hides everything', () => {
    expect(run('Get-Thing nope 2>$null; $Error.Count; Get-Thing here *>$null; Get-Thing nope *> $null')).toEqual({
      stdout: '1\r\n',
      stderr: '',
      exitCode: 1,
    });
  });

  it('> file writes what the console would show, as Out-File: UTF-16LE with a byte order mark', () => {
    const host = new TestHost();
    expect(run("Get-Thing here > 'C:\\out.txt'; 'done'", host).stdout).toBe('done\r\n');
    const bytes = host.files.get('C:\\out.txt');
    expect(bytes?.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfe]));
    expect(bytes?.subarray(2).toString('utf16le')).toBe('found\r\n');
    expect(run("Get-Thing nope 2> 'C:\\err.txt'; 'went on'", host)).toEqual({ stdout: 'went on\r\n', stderr: '', exitCode: 0 });
    expect(host.files.get('C:\\err.txt')?.subarray(2).toString('utf16le')).toMatch(
      /^Get-Thing : Cannot find any thing with name 'nope'\.\r\n/,
    );
    expect(run("'x' >> 'C:\\out.txt'", host).stderr).toMatch(/appending redirection \(>>\) to a file\) is outside the simulated subset/);
  });

  it("a program's redirected stderr becomes error records: with $ErrorActionPreference = 'Stop' it ends the script (5.1)", () => {
    expect(run('tool 0 --warn 2>&1 | ForEach-Object { "[$_]" }')).toMatchObject({ stdout: '[out]\r\n[warning: careful]\r\n', stderr: '' });
    const r = run("$ErrorActionPreference = 'Stop'\n$x = tool 0 --warn 2>&1\n'never'");
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^tool : warning: careful\r\n/);
  });
});

describe('about_Quoting_Rules', () => {
  it('a PSCustomObject in a string is @{name=value; ...}; a hashtable is its type name', () => {
    expect(out('"$([pscustomobject]@{ a = 1; b = \'x\' })"; "$(@{ a = 1 })"')).toEqual(['@{a=1; b=x}', 'System.Collections.Hashtable']);
  });
});

describe('Where-Object (Microsoft.PowerShell.Core/Where-Object)', () => {
  it('the simplified syntax (Where-Object Name -eq value) filters as the script block form does', () => {
    expect(
      out(
        "$o = [pscustomobject]@{ Name = 'a' }, [pscustomobject]@{ Name = 'b' }\n($o | Where-Object Name -eq 'b').Name; ($o | Where-Object { $_.Name -like 'a*' }).Name",
      ),
    ).toEqual(['b', 'a']);
  });
});

describe('about_Assignment_Operators', () => {
  it('+=, -=, *=, ++ and -- on variables, array and hashtable elements', () => {
    expect(
      out(
        "$n = 5; $n += 2; $n -= 1; $n *= 3; $n; $a = @(1); $a += 2; $a -join ','; $h = @{ k = 1 }; $h['k'] += 10; $h.k; $i = 0; $i++; ++$i; $i; $j = $i--; \"$j $i\"",
      ),
    ).toEqual(['18', '1,2', '11', '2', '2 1']);
  });
});

describe('about_If', () => {
  it('elseif clauses are tried in order after a false if, and else only when none holds', () => {
    const pick = (n: number) =>
      out(`$n = ${n}; if ($n -eq 1) { 'one' } elseif ($n -eq 2) { 'two' } elseif ($n -eq 3) { 'three' } else { 'other' }`);
    expect([pick(1), pick(2), pick(3), pick(4)]).toEqual([['one'], ['two'], ['three'], ['other']]);
  });
});
