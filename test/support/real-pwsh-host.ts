// bridge API: one script in real PowerShell (pwsh 7.6.9, pwshPath()) against a simulated Windows host held in this
// process, without SSH: groundcrew's Windows module is loaded, its cmdlets and the host's programs answer from the
// host's state (src/sim/windows/real-pwsh/), and what the script changes is the host's. The lab runs the same
// bridge behind sshd.

import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerNativeRequest, PwshBridgeServer } from '../../src/sim/transports/pwsh-bridge-server.js';
import { SimSocketServer } from '../../src/sim/transports/socket-server.js';
import type { Build } from '../../src/sim/windows/real-pwsh/cmdlet-metadata.js';
import type { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { WindowsShell } from '../../src/sim/windows/windows-shell.js';
import { pwshPath } from './pwsh.js';
import { realPwshCommand, realPwshEnv, writeRealPwshConfig } from './real-pwsh-env.js';
import { compileSimClient } from './sim-client.js';

export interface RealPwshResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Restart-Computer asked for a reboot (the host is not rebooted: the caller decides, as the lab does). */
  rebootRequested: boolean;
}

export interface RealPwshOptions {
  /** Standard input of the process ([Console]::In), e.g. a secret. */
  stdin?: string;
  /** Kill pwsh after this long (default 120 s: pwsh starts in about a second on a busy machine). */
  timeoutMs?: number;
  /** More environment for the process, e.g. LANG/LC_ALL for the console's code page. */
  env?: Record<string, string>;
}

interface Bridge {
  root: string;
  bridge: PwshBridgeServer;
  natives: SimSocketServer;
  client: string;
  emptyPath: string;
  configs: Map<Build, Promise<string>>;
  hosts: Map<string, WindowsHost>;
  /** Runs the programs a simulated service starts (test/lab/lab.ts' replaceModel says why the interpreter). */
  services: WindowsShell;
}

let shared: Promise<Bridge> | undefined;

/** A host's pwsh TMPDIR, where its served pipes listen. */
const pipeDirOf = (root: string, hostName: string) => join(root, 'runs', hostName, 'pipes');
let calls = 0;

async function startBridge(): Promise<Bridge> {
  const root = await mkdtemp(join(tmpdir(), 'gc-real-pwsh-'));
  const hosts = new Map<string, WindowsHost>();
  const hostOf = (name: string) => hosts.get(name);
  const [bridge, natives, client] = await Promise.all([
    PwshBridgeServer.listen(join(root, 'bridge.sock'), { hostOf, pipeDirOf: (name) => pipeDirOf(root, name) }),
    SimSocketServer.listen(join(root, 'natives.sock'), async (request) => {
      if (request.kind !== 'native') return { stdout: '', stderr: `real pwsh bridge: no ${request.kind} requests here\n`, exitCode: 255 };
      const answer = answerNativeRequest(hostOf, request);
      (await shared)?.bridge.syncPipes(request.host);
      return answer;
    }),
    compileSimClient(join(root, 'bin')),
  ]);
  const services = await WindowsShell.create();
  const emptyPath = join(root, 'empty-path');
  await mkdir(emptyPath);
  process.once('exit', () => {
    void bridge.close();
    void natives.close();
  });
  return { root, bridge, natives, client, emptyPath, configs: new Map(), hosts, services };
}

function configFor(b: Bridge, build: Build): Promise<string> {
  let config = b.configs.get(build);
  if (!config) {
    config = writeRealPwshConfig(join(b.root, `build-${build}`), build);
    b.configs.set(build, config);
  }
  return config;
}

/**
 * Runs `script` as groundcrew sends it (powershell.exe -EncodedCommand, as pwsh) against `model`. A script that
 * writes into pwsh's Linux working directory or HOME (a .NET static such as [IO.File]::WriteAllText given a
 * Windows path, which no module can intercept) fails loudly: exit 1, the files named on stderr.
 */
export async function runInRealPwsh(
  model: WindowsHost,
  script: string,
  stdinOrOptions: string | RealPwshOptions = {},
): Promise<RealPwshResult> {
  const options = typeof stdinOrOptions === 'string' ? { stdin: stdinOrOptions } : stdinOrOptions;
  shared ??= startBridge();
  const b = await shared;
  const hostName = `host-${process.pid}-${++calls}`;
  const work = join(b.root, 'runs', hostName, 'work');
  const scratch = join(b.root, 'runs', hostName, 'scratch');
  await mkdir(work, { recursive: true });
  await mkdir(scratch, { recursive: true });
  await mkdir(pipeDirOf(b.root, hostName), { recursive: true });
  b.hosts.set(hostName, model);
  model.runProcess ??= (commandLine) => b.services.runCommandLine(model, commandLine);
  try {
    const build: Build = model.state.build === 14393 ? 14393 : 17763;
    const env = {
      ...realPwshEnv({
        configHome: await configFor(b, build),
        work,
        scratch,
        emptyPath: b.emptyPath,
        pipeDir: pipeDirOf(b.root, hostName),
        bridgeSocket: b.bridge.path,
        nativeSocket: b.natives.path,
        simClient: b.client,
        hostName,
        computerName: model.state.hostname,
      }),
      ...options.env,
    };
    const encoded = Buffer.from(script, 'utf16le').toString('base64');
    const result = await spawnPwsh(['-NoLogo', '-NonInteractive', '-EncodedCommand', encoded], env, work, options);
    const strays = await readdir(work);
    if (strays.length > 0)
      return {
        ...result,
        stderr: `${result.stderr}groundcrew real pwsh: the script wrote ${strays.map((s) => JSON.stringify(s)).join(', ')} into pwsh's Linux working directory: a .NET static ([IO.File]::...) given a Windows path, which never reaches the simulated host\n`,
        exitCode: result.exitCode === 0 ? 1 : result.exitCode,
        rebootRequested: model.rebootRequested,
      };
    return { ...result, rebootRequested: model.rebootRequested };
  } finally {
    b.bridge.releasePipes(hostName);
    b.hosts.delete(hostName);
    await rm(join(b.root, 'runs', hostName), { recursive: true, force: true });
  }
}

function spawnPwsh(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  options: RealPwshOptions,
): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  return new Promise((resolve, reject) => {
    const pwsh = realPwshCommand(pwshPath());
    const child = spawn(pwsh.file, [...pwsh.args, ...args], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout, stderr: signal ? `${stderr}real pwsh killed by ${signal}\n` : stderr, exitCode: code ?? 255 });
    });
    child.stdin.end(options.stdin ?? '');
  });
}
