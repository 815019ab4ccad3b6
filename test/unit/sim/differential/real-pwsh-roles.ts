// Real PowerShell's side of the role-script differential: many cases (a script and the simulated host it is sent
// to) in one pwsh process per build, each in a fresh runspace with groundcrew's Windows module, against hosts this
// process holds (the pwsh-lab bridge's server, src/sim/transports/pwsh-bridge-server.ts). One pwsh start per case
// (test/support/real-pwsh-host.ts) costs seconds on a busy machine; hundreds of cases need one process.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerNativeRequest, PwshBridgeServer } from '../../../../src/sim/transports/pwsh-bridge-server.js';
import { SimSocketServer } from '../../../../src/sim/transports/socket-server.js';
import type { Build } from '../../../../src/sim/windows/real-pwsh/cmdlet-metadata.js';
import { windowsModuleSource } from '../../../../src/sim/windows/real-pwsh/module-source.js';
import type { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { windowsRegistry } from '../../../../src/sim/windows/windows-shell.js';
import { pwshPath } from '../../../support/pwsh.js';
import { realPwshCommand, realPwshEnv } from '../../../support/real-pwsh-env.js';
import { compileSimClient } from '../../../support/sim-client.js';
import type { RawOutcome } from './real-pwsh.js';

const HERE = import.meta.dirname;

export interface RoleCase {
  /** Unique, and a file name: the case's working directory and its host's name on the bridge. */
  id: string;
  script: string;
  stdin: string;
  /** The host real pwsh changes (a clone of the one the TypeScript interpreter gets). */
  host: WindowsHost;
}

export interface RealRoleOutcome extends RawOutcome {
  /** Files the script left in pwsh's Linux working directory (a .NET static given a Windows path). */
  strays: string[];
}

/** Runs every case of one build in real pwsh; the answer is keyed by case id. */
export async function runRoleCasesInRealPwsh(build: Build, cases: readonly RoleCase[]): Promise<Map<string, RealRoleOutcome>> {
  const root = await mkdtemp(join(tmpdir(), 'gc-differential-roles-'));
  const hosts = new Map(cases.map((c) => [c.id, c.host]));
  const hostOf = (name: string) => hosts.get(name);
  const [bridge, natives, client] = await Promise.all([
    // One process runs the cases in turn: one pipe directory, listening for the asking case's host.
    PwshBridgeServer.listen(join(root, 'bridge.sock'), { hostOf, pipeDirOf: () => join(root, 'pipes') }),
    SimSocketServer.listen(join(root, 'natives.sock'), async (request) =>
      request.kind === 'native'
        ? answerNativeRequest(hostOf, request)
        : { stdout: '', stderr: `differential: no ${request.kind} requests here\n`, exitCode: 255 },
    ),
    compileSimClient(join(root, 'bin')),
  ]);
  try {
    const moduleFile = join(root, 'GcWindows.psm1');
    await writeFile(moduleFile, windowsModuleSource(build, windowsRegistry()));
    for (const dir of ['empty-path', 'config', 'scratch', 'work', 'pipes']) await mkdir(join(root, dir));
    const env = realPwshEnv({
      configHome: join(root, 'config'),
      work: join(root, 'work'),
      scratch: join(root, 'scratch'),
      emptyPath: join(root, 'empty-path'),
      pipeDir: join(root, 'pipes'),
      bridgeSocket: bridge.path,
      nativeSocket: natives.path,
      simClient: client,
      hostName: '',
      computerName: 'win1',
    });
    const results = new Map<string, RealRoleOutcome>();
    let pending = [...cases];
    // What the simulator does not model ends the process (the module's GcRefuse): that case's answer is what the
    // process wrote on stderr after the case began and its exit status, and the rest run in a new process.
    for (let start = 0; pending.length > 0; start++) {
      const input = join(root, `in-${start}.json`);
      const output = join(root, `out-${start}.jsonl`);
      await writeFile(input, JSON.stringify(pending.map(({ id, script, stdin }) => ({ id, script, stdin }))));
      const args = ['-NoProfile', '-NonInteractive', '-File', join(HERE, 'run-role-scripts.ps1')];
      const ended = await runPwsh(
        [...args, join(HERE, 'capture-host.cs'), moduleFile, input, output, join(root, 'work')],
        env,
        join(root, 'work'),
      );
      const lines = existsSync(output) ? readFileSync(output, 'utf8').split('\n').filter(Boolean) : [];
      for (const line of lines) {
        const { id, ...outcome } = JSON.parse(line) as { id: string } & RealRoleOutcome;
        results.set(id, outcome);
      }
      pending = pending.filter((c) => !results.has(c.id));
      const [died] = pending;
      if (!died) break;
      const marker = `@@case ${died.id}\n`;
      const at = ended.stderr.lastIndexOf(marker);
      if (at < 0) throw new Error(`real pwsh ended (exit ${ended.exitCode}) before case ${died.id}: ${ended.stderr.slice(-2000)}`);
      results.set(died.id, { stdout: '', stderr: ended.stderr.slice(at + marker.length), exitCode: ended.exitCode, strays: [] });
      pending = pending.slice(1);
    }
    return results;
  } finally {
    await Promise.all([bridge.close(), natives.close()]);
    await rm(root, { recursive: true, force: true });
  }
}

function runPwsh(args: string[], env: Record<string, string>, cwd: string): Promise<{ stderr: string; exitCode: number }> {
  return new Promise((resolve, reject) => {
    const pwsh = realPwshCommand(pwshPath());
    const child = spawn(pwsh.file, [...pwsh.args, ...args], { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 1_200_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stderr: signal ? `${stderr}real pwsh killed by ${signal}\n` : stderr, exitCode: code ?? 255 });
    });
  });
}
