// A file the Windows roles write from stdin holds exactly the bytes groundcrew hashed, even where the console's
// input code page is not UTF-8: Windows PowerShell 5.1 reads [Console]::In in the node's OEM code page. The set's
// own script runs in real pwsh with a Latin-1 console (a code page that is not UTF-8, as 5.1's is) against a
// simulated host (test/support/real-pwsh-host.ts: the lab's engine, whose Set-Content binds 5.1's parameters and
// writes to the host); then the resource's test must find the file as it wants it, by the bytes the host holds.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Command, CommandResult, Executor, RunOptions } from '../../../../src/dataplane/executor.js';
import { configFile } from '../../../../src/roles/windows/service-resources.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { runInRealPwsh } from '../../../support/real-pwsh-host.js';

class Accepting implements Executor {
  readonly os = 'windows' as const;
  readonly sent: { script: string; stdin?: string }[] = [];
  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    this.sent.push({ script: cmd.script, stdin: opts.stdin });
    return { exitCode: 0, stdout: '', stderr: '', durationMs: 0 };
  }
  async close() {}
}

const LATIN1 = { LANG: 'en_US.ISO-8859-1', LC_ALL: 'en_US.ISO-8859-1' };

describe('a config file written from stdin', () => {
  it('holds the UTF-8 groundcrew hashed when the console reads stdin in another code page', async () => {
    const dir = 'C:\\ProgramData\\Contrail\\etc\\contrail';
    const path = `${dir}\\contrail-cnm-plugin.conf`;
    const resource = configFile(
      'cnm-plugin',
      path,
      () => ['[KEYSTONE]', 'Os_password=pässwörd€', 'Os_username=admin'],
      'contrail-cnm-plugin',
    );
    const exec = new Accepting();
    await resource.set({ exec, facts: new Map() });
    const [write] = exec.sent;
    if (!write) throw new Error('the set sent nothing');
    const host = WindowsHost.fresh({ hostname: 'w' });
    host.fs.mkdirp(dir);
    const r = await runInRealPwsh(host, write.script, { stdin: write.stdin, env: LATIN1 });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    const hash = createHash('sha256')
      .update(Buffer.from(host.fs.read(path) ?? '', 'latin1'))
      .digest('hex')
      .toUpperCase();
    expect(resource.test(new Map([[`config.cnm-plugin`, hash]]))).toMatchObject({ inDesiredState: true });
  }, 120_000);

  it('the console of that run does read stdin as Latin-1: text sent as it is would arrive changed', async () => {
    const r = await runInRealPwsh(WindowsHost.fresh({ hostname: 'w' }), '[Console]::In.ReadToEnd().Length', { stdin: 'ä', env: LATIN1 });
    expect(r.stdout.trim()).toBe('2');
  }, 120_000);
});
