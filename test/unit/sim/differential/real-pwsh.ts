// Real PowerShell's side of the differential suite: every snippet in one pwsh process, each in a fresh runspace
// hosted as `pwsh -c` hosts its command (run-snippets.ps1, capture-host.cs).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pwshPath } from '../../../support/pwsh.js';
import type { Snippet } from './snippet.js';

export interface RawOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const HERE = import.meta.dirname;

/** Runs every snippet in real pwsh; the answer is keyed by snippet name. */
export function runInRealPwsh(snippets: readonly Snippet[]): Map<string, RawOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-differential-'));
  try {
    const input = join(dir, 'in.json');
    const output = join(dir, 'out.json');
    writeFileSync(input, JSON.stringify(snippets.map((s) => ({ id: s.name, script: s.script }))));
    execFileSync(
      pwshPath(),
      ['-NoProfile', '-NonInteractive', '-File', join(HERE, 'run-snippets.ps1'), join(HERE, 'capture-host.cs'), input, output],
      {
        cwd: dir,
        env: { ...process.env, PATH: `${join(HERE, 'bin')}${delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' },
        stdio: ['ignore', 'inherit', 'inherit'],
        timeout: 300_000,
      },
    );
    const results = JSON.parse(readFileSync(output, 'utf8')) as ({ id: string } & RawOutcome)[];
    return new Map(results.map(({ id, ...outcome }) => [id, outcome]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
