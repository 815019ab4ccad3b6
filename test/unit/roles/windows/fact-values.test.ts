// A fact read from a file must reach groundcrew as the file's text under Windows PowerShell 5.1 too. Get-Content
// decorates each string it returns with NoteProperties (PSPath, PSDrive, ReadCount, ...); 5.1's ConvertTo-Json
// serializes such a string as an object ({"value": ..., "PSPath": ...}), and only PowerShell 7.2 stopped that
// (PowerShell/PowerShell#15665, after #6458 and #5797). So pwsh 7.6 hides the difference: the facts script of each
// such fact runs here in real pwsh, with a C: drive over a scratch directory holding the file, and no fact value
// may keep a NoteProperty that 5.1 would send. The facts are every Windows phase's (test/support/windows-scripts.ts).

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { psQuote } from '../../../../src/dataplane/quote.js';
import { windowsFactsScript } from '../../../../src/roles/facts.js';
import { analyzeScripts } from '../../../support/ps51-syntax.js';
import { pwshPath } from '../../../support/pwsh.js';
import { everyWindowsPhase } from '../../../support/windows-scripts.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-facts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Lists, after the facts script ran, the id of each fact whose value is a string carrying NoteProperties. */
const DECORATED = [
  '$GcDecorated = foreach ($k in $GcFacts.Keys) {',
  '  $notes = @($GcFacts[$k].PSObject.Properties | Where-Object { $_.MemberType -eq "NoteProperty" } | ForEach-Object Name)',
  '  if ($GcFacts[$k] -is [string] -and $notes.Count -gt 0) { $k }',
  '}',
  '@($GcDecorated) | ConvertTo-Json -Compress',
].join('\n');

describe('facts read from files', () => {
  it('reach groundcrew as strings, not as the objects 5.1 makes of what Get-Content returns', () => {
    // One query per text (one id can be asked differently at another Contrail version), each with an id of its own.
    const queries = [...new Set(everyWindowsPhase().flatMap((p) => p.resources.flatMap((r) => r.facts.flatMap((f) => f.ps ?? []))))];
    const facts = queries.map((ps, n) => ({ id: `fact${n}`, ps }));
    const calls = analyzeScripts(queries);
    const reads = facts.flatMap((fact, i) =>
      (calls[i]?.commands ?? [])
        .filter((c) => c.name === 'Get-Content')
        .map((c) => ({ fact, path: c.parameters.find((p) => /^(Literal)?Path$/i.test(p.name))?.value ?? '' }))
        // A path the script computes ($_.FullName of files it lists) cannot be laid down from its text.
        .filter((r) => /^[A-Z]:\\/i.test(r.path)),
    );
    // The roles read what they recorded (MSI builds, images, registration, the overlay) and daemon.json.
    expect(reads.length).toBeGreaterThan(4);
    const drive = join(dir, 'C');
    for (const { path } of reads) {
      const file = join(drive, ...path.replace(/^C:\\/i, '').split('\\'));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, '{"x":1}\r\n');
    }
    const script = [
      `$null = New-PSDrive -Name C -PSProvider FileSystem -Root ${psQuote(drive)} -Scope Global`,
      windowsFactsScript(reads.map((r) => r.fact)),
      DECORATED,
    ].join('\n');
    const out = execFileSync(pwshPath(), ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', script], { encoding: 'utf8' });
    const [factsJson, decorated] = out.trim().split('\n');
    const read = JSON.parse(factsJson ?? '{}') as { facts: Record<string, unknown>; failed: Record<string, unknown> };
    expect(read.failed).toEqual({});
    expect(Object.keys(read.facts).sort()).toEqual(reads.map((r) => r.fact.id).sort());
    const byId = new Map(facts.map((f) => [f.id, f.ps]));
    expect((JSON.parse(decorated ?? '[]') as string[]).map((id) => `decorated by Get-Content: ${byId.get(id)}`)).toEqual([]);
  });
});
