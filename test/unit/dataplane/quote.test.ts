// bashQuote and psQuote against hostile values: real bash, the PowerShell grammar, and the simulators.

import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { bashQuote, psQuote } from '../../../src/dataplane/quote.js';
import { LinuxHost } from '../../../src/sim/linux/linux-host.js';
import { LinuxShell } from '../../../src/sim/linux/linux-shell.js';
import { loadPowerShellParser } from '../../../src/sim/shells/powershell/parser.js';
import { WindowsHost } from '../../../src/sim/windows/windows-host.js';
import { WindowsShell } from '../../../src/sim/windows/windows-shell.js';

const HOSTILE = [
  '',
  'plain',
  "it's",
  '"double" and \'single\'',
  "''''",
  '$(rm -rf /tmp/gc-should-not-exist)',
  '`touch /tmp/gc-should-not-exist`',
  '${HOME} $HOME $env:Path $(Get-Process) @(1) @{a=1}',
  'a; echo injected | cat && false || true & bg',
  'line1\nline2\r\nline3\n',
  'tab\there',
  '\\ back\\slash \\\\ \\\' \\"',
  '%PATH% !history ^caret <in >out 2>&1',
  'glob * ? [a-z] {a,b} ~root',
  'unicode: é ü 中文 Ω 🚀 \u200b zero-width',
  'smart quotes: \u2018left\u2019 \u201Alow\u201B and “double”',
  '-NoProfile --option -e',
  '# not a comment',
  'x'.repeat(100_000),
];

describe('bashQuote', () => {
  it('round-trips every hostile value through real bash', () => {
    const script = `printf '%s\\0' ${HOSTILE.map(bashQuote).join(' ')}`;
    // --norc: bash given a socket for stdin (as Node's child processes are) with SHLVL under 2 reads ~/.bashrc, and
    // root's on these machines runs `pyenv init`, which waited 60 s on a lock pyenv left behind (a loaded run).
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    expect(out.split('\0').slice(0, -1)).toEqual(HOSTILE);
  });

  it('round-trips them through the simulated bash too', async () => {
    const shell = await LinuxShell.create();
    const host = LinuxHost.fresh('q');
    for (const value of HOSTILE) {
      expect(shell.run(host, `printf '%s' ${bashQuote(value)}`).stdout).toBe(value);
    }
  });

  it('refuses a NUL byte instead of silently cutting the value', () => {
    expect(() => bashQuote('a\0b')).toThrow(expect.objectContaining({ code: 'GC_UNSAFE_VALUE' }));
  });
});

describe('psQuote', () => {
  let shell: WindowsShell;
  beforeAll(async () => {
    shell = await WindowsShell.create();
  });

  it('gives scripts that parse without error with tree-sitter-powershell', async () => {
    const parser = await loadPowerShellParser();
    for (const value of HOSTILE) {
      const tree = parser.parse(`Write-Output ${psQuote(value)}\n$x = @(${psQuote(value)}, ${psQuote(value)})`);
      expect(tree?.rootNode.hasError, value.slice(0, 40)).toBe(false);
      tree?.delete();
    }
  });

  it('round-trips every hostile value through the simulated PowerShell', () => {
    const host = WindowsHost.fresh({ hostname: 'q' });
    for (const value of HOSTILE) {
      const r = shell.runScript(host, `[pscustomobject]@{ v = ${psQuote(value)} } | ConvertTo-Json -Compress`);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout).v).toBe(value);
    }
  });

  it('doubles the typographic single quotes PowerShell also ends strings with', () => {
    expect(psQuote('a\u2019b')).toBe("'a\u2019\u2019b'");
    expect(() => psQuote('\0')).toThrow(expect.objectContaining({ code: 'GC_UNSAFE_VALUE' }));
  });
});
