// daemon.json written in bytes Windows PowerShell 5.1 and 7 agree on (-Encoding ASCII), without losing what the
// node's file held beyond ASCII: those characters go as JSON escapes, which dockerd's reader (Go's encoding/json)
// turns back into the same string. The script is read with the real parser (test/support/ps51-syntax.ts).

import { describe, expect, it } from 'vitest';
import type { Command, CommandResult, Executor } from '../../../../src/dataplane/executor.js';
import { windowsPrereqs } from '../../../../src/roles/windows/prereqs.js';
import { windowsInput } from '../../../support/inputs.js';
import { encodingOf } from '../../../support/ps51-reference.js';
import { analyzeScripts } from '../../../support/ps51-syntax.js';

class Accepting implements Executor {
  readonly os = 'windows' as const;
  readonly scripts: string[] = [];
  async run(cmd: Command): Promise<CommandResult> {
    this.scripts.push(cmd.script);
    return { exitCode: 0, stdout: '', stderr: '', durationMs: 0 };
  }
  async close() {}
}

describe('docker/daemon.json', () => {
  it('keeps a value past ASCII as a JSON escape, written -Encoding ASCII, read back -Encoding UTF8', async () => {
    const resource = windowsPrereqs(windowsInput()).resources.find((r) => r.name === 'docker/daemon.json');
    if (!resource) throw new Error('no docker/daemon.json resource');
    const exec = new Accepting();
    const kept = { 'data-root': 'D:\\données\\docker', labels: ['zone=Zürich'] };
    const facts = new Map<string, unknown>([
      ['docker.daemonJson', JSON.stringify(kept)],
      ['docker.status', 'Stopped'],
    ]);
    await resource.set({ exec, facts });
    const [reader, writer] = analyzeScripts([resource.facts.find((f) => f.id === 'docker.daemonJson')?.ps ?? '', exec.scripts[0] ?? '']);
    const read = reader?.commands.find((c) => c.name === 'Get-Content');
    const write = writer?.commands.find((c) => c.name === 'Set-Content');
    if (!read || !write) throw new Error('no Get-Content or Set-Content in the scripts');
    expect([encodingOf(read), encodingOf(write)]).toEqual(['UTF8', 'ASCII']);
    const value = write.parameters.find((p) => p.name === 'Value')?.value ?? '';
    expect(value).toMatch(/^[\x20-\x7e]*$/);
    expect(JSON.parse(value)).toEqual({ ...kept, bridge: 'none' });
  });
});
