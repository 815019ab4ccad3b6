// What the simulated PowerShell does not model is refused: a named error, exit 1, and no catch, -ErrorAction or
// redirection in the script can turn it into a value (docs/simulator.md, Languages).

import { describe, expect, it } from 'vitest';
import { run } from './ps-harness.js';

describe('what the simulator does not model is refused, and no script can catch it', () => {
  it('an unknown command: the real message, and try/catch cannot turn it into $null', () => {
    const r = run("$f = @{}\ntry { $f['x'] = $(Get-Bogus -Name y) } catch { $f['x'] = $null }\n$f | ConvertTo-Json");
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^Get-Bogus : The term 'Get-Bogus' is not recognized as the name of a cmdlet, function, script file, or operable program\./,
    );
    expect(r.stderr).toMatch(/'Get-Bogus' is not modelled/);
  });

  it('neither -ErrorAction SilentlyContinue nor 2>$null hides it', () => {
    for (const script of ['Get-Bogus -ErrorAction SilentlyContinue', 'Get-Bogus 2>$null', 'Get-Odd *>$null']) {
      const r = run(`${script}; 'after'`);
      expect(r.exitCode, script).toBe(1);
      expect(r.stdout, script).toBe('');
      expect(r.stderr, script).toMatch(/groundcrew sim|not modelled/);
    }
  });

  it('a syntax node it does not know names the construct', () => {
    const r = run("try { class Foo { } } catch { 'swallowed' }");
    expect(r).toMatchObject({ stdout: '', exitCode: 1 });
    expect(r.stderr).toMatch(/this PowerShell construct \(class_statement\) is outside the simulated subset/);
  });

  it('an operator, a cast, a .NET method or an automatic variable it does not model', () => {
    for (const [script, named] of [
      ['1 -shl 2', "the operator '-shl'"],
      ["[datetime]'2020-01-01'", 'the cast \\[datetime\\]'],
      ["'abc'.PadLeft(5)", 'the method PadLeft'],
      ['$PSVersionTable.PSVersion', 'the automatic variable \\$psversiontable'],
      ['"$([pscustomobject]@{ a = 1 }) and $(Get-Odd2)"', 'not modelled'],
      ["try { 'a' -match '(?i)A' } catch { 'swallowed' }", 'an inline regex option'],
    ]) {
      const r = run(script as string);
      expect(r.exitCode, script).toBe(1);
      expect(r.stdout, script).toBe('');
      expect(r.stderr, script).toMatch(new RegExp(named as string));
    }
  });

  it('a cmdlet form it does not model: Select-Object with a calculated property, Where-Object without a filter', () => {
    for (const script of ["'a' | Select-Object @{ n = 'x'; e = { 1 } }", "'a' | Where-Object"]) {
      const r = run(`try { ${script} } catch { 'swallowed' }`);
      expect(r, script).toMatchObject({ stdout: '', exitCode: 1 });
      expect(r.stderr, script).toMatch(/groundcrew sim: (Select|Where)-Object/);
    }
  });

  it('catch [T] for an error whose .NET type the simulator does not know is refused, not guessed', () => {
    const r = run("try { Get-Odd2 } catch [System.IO.IOException] { 'x' }");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/not modelled/);
  });
});
