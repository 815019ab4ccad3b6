// A file the Windows roles write from stdin holds exactly the bytes groundcrew hashed, even where the console's
// input code page is not UTF-8: Windows PowerShell 5.1 reads [Console]::In in the node's OEM code page. The set's
// own script runs in real pwsh with a Latin-1 console (a code page that is not UTF-8, as 5.1's is), the Windows
// path a file name in a scratch directory; then the resource's test must find the file as it wants it.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Command, CommandResult, Executor, RunOptions } from '../../../../src/dataplane/executor.js';
import { configFile } from '../../../../src/roles/windows/service-resources.js';
import { pwshPath } from '../../../support/pwsh.js';

class Accepting implements Executor {
  readonly os = 'windows' as const;
  readonly sent: { script: string; stdin?: string }[] = [];
  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    this.sent.push({ script: cmd.script, stdin: opts.stdin });
    return { exitCode: 0, stdout: '', stderr: '', durationMs: 0 };
  }
  async close() {}
}

const dir = mkdtempSync(join(tmpdir(), 'gc-stdin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a config file written from stdin', () => {
  it('holds the UTF-8 groundcrew hashed when the console reads stdin in another code page', async () => {
    const path = 'C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-cnm-plugin.conf';
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
    execFileSync(pwshPath(), ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', write.script], {
      cwd: dir,
      input: write.stdin,
      env: { ...process.env, LANG: 'en_US.ISO-8859-1', LC_ALL: 'en_US.ISO-8859-1' },
    });
    const hash = createHash('sha256')
      .update(readFileSync(join(dir, path)))
      .digest('hex')
      .toUpperCase();
    expect(resource.test(new Map([[`config.cnm-plugin`, hash]]))).toMatchObject({ inDesiredState: true });
  });

  it('the console of that run does read stdin as Latin-1: text sent as it is would arrive changed', () => {
    const out = execFileSync(pwshPath(), ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', '[Console]::In.ReadToEnd().Length'], {
      input: 'ä',
      env: { ...process.env, LANG: 'en_US.ISO-8859-1', LC_ALL: 'en_US.ISO-8859-1' },
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('2');
  });
});
