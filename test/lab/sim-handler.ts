// Answers gc-sim-client for lab hosts: Windows command lines for the TypeScript interpreter, or a real-pwsh
// Windows session's start and end and the programs its pwsh runs; the docker/systemctl/reboot shims of Linux hosts.

import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { compose } from '../../src/sim/linux/compose.js';
import { docker } from '../../src/sim/linux/docker.js';
import { LinuxHost } from '../../src/sim/linux/linux-host.js';
import { systemctl } from '../../src/sim/linux/systemctl.js';
import { answerNativeRequest } from '../../src/sim/transports/pwsh-bridge-server.js';
import type { SimRequest, SimResponse } from '../../src/sim/transports/socket-server.js';
import { splitCommandLine } from '../../src/sim/windows/command-line.js';
import { WindowsHost } from '../../src/sim/windows/windows-host.js';
import type { Lab, LabHost } from './lab.js';

/** How long a Windows host takes from answering Restart-Computer to going down. */
const WINDOWS_SHUTDOWN_DELAY_MS = 250;

/** A path inside a Linux lab host, read from the host's own directories where it has them. */
function readHostFile(host: LabHost, path: string): string | undefined {
  const mount = host.paths.mounts.find((m) => path === m.inside || path.startsWith(`${m.inside}/`));
  const real = mount
    ? mount.outside + path.slice(mount.inside.length)
    : path.startsWith('/root/')
      ? host.paths.home + path.slice(5)
      : undefined;
  return real && existsSync(real) ? readFileSync(real, 'utf8') : undefined;
}

function decodedScript(commandLine: string): string {
  const argv = splitCommandLine(commandLine);
  const at = argv.findIndex((a) => /^-(encodedcommand|enc|e)$/i.test(a));
  const encoded = at >= 0 ? argv[at + 1] : undefined;
  return encoded ? Buffer.from(encoded, 'base64').toString('utf16le') : commandLine;
}

/**
 * The caller a Windows session's key names (GC_CALLER, from authorized_keys): read from the environment of the
 * session's child, the gc-sim-client that sent this request.
 */
async function callerOf(request: SimRequest): Promise<string> {
  if (!request.parentPid) return '-';
  const children = await readFile(`/proc/${request.parentPid}/task/${request.parentPid}/children`, 'utf8').catch(() => '');
  for (const pid of children.trim().split(/\s+/).filter(Boolean)) {
    const env = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
    const caller = env.split('\0').find((v) => v.startsWith('GC_CALLER='));
    if (caller) return caller.slice('GC_CALLER='.length);
  }
  return '-';
}

function dropSession(request: SimRequest): void {
  if (request.parentPid) {
    try {
      process.kill(request.parentPid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export async function handleSimRequest(lab: Lab, request: SimRequest): Promise<SimResponse> {
  const host = lab.hosts.find((h) => h.name === request.host);
  if (!host) return { stdout: '', stderr: `groundcrew lab: unknown host ${request.host}\n`, exitCode: 255 };

  if (request.kind === 'windows' && host.os === 'windows' && !(host.model instanceof LinuxHost)) {
    const model = host.model;
    const command = request.command ?? '';
    await lab.logCommand(host, decodedScript(command), await callerOf(request));
    if (host.faults.slowMs) await new Promise((r) => setTimeout(r, host.faults.slowMs));
    if (host.faults.dropAfterMs !== undefined) {
      const after = host.faults.dropAfterMs;
      delete host.faults.dropAfterMs;
      await new Promise((r) => setTimeout(r, after));
      dropSession(request);
      return { stdout: '', stderr: '', exitCode: 255 };
    }
    // Standard input is read only when the script reads it (a secret), as a real process would.
    const readsStdin = /-command\s+-\s*$/i.test(command) || /\[Console\]::In\b/i.test(decodedScript(command));
    const stdin = readsStdin ? await request.readStdin() : '';
    const result = lab.shell.runCommandLine(model, command, stdin);
    const reboot = model.rebootRequested;
    model.rebootRequested = false;
    await lab.saveState(host);
    // Windows answers Restart-Computer and shuts down a moment later: the session that asked gets its exit status
    // (rebooting as soon as the answer left raced sshd forwarding it: the caller sometimes saw 255).
    const shutdown = () => setTimeout(() => void lab.reboot(host.name), WINDOWS_SHUTDOWN_DELAY_MS);
    return { ...result, ...(reboot ? { after: shutdown } : {}) };
  }

  if (host.os === 'windows' && host.model instanceof WindowsHost) {
    const model = host.model;
    // A session starts (gc-windows-exec): the call log gets the decoded script and the caller.
    if (request.kind === 'windows-log') {
      await lab.logCommand(host, decodedScript(request.command ?? ''), await callerOf(request));
      return { stdout: '', stderr: '', exitCode: 0 };
    }
    // A program the script ran (sc.exe, C:\...\nssm.exe): the host answers it.
    if (request.kind === 'native') {
      const result = answerNativeRequest((name) => (name === host.name ? model : undefined), request);
      lab.syncPipes(host.name);
      await lab.saveState(host);
      return result;
    }
    // The session's pwsh ended: Windows answers Restart-Computer and shuts down a moment later, so the session that
    // asked gets its exit status (rebooting as soon as the answer left raced sshd forwarding it: the caller
    // sometimes saw 255).
    if (request.kind === 'windows-exit') {
      const reboot = model.rebootRequested;
      model.rebootRequested = false;
      await lab.saveState(host);
      const shutdown = () => setTimeout(() => void lab.reboot(host.name), WINDOWS_SHUTDOWN_DELAY_MS);
      return { stdout: '', stderr: '', exitCode: 0, ...(reboot ? { after: shutdown } : {}) };
    }
  }

  if (request.kind === 'shim' && host.model instanceof LinuxHost) {
    const model = host.model;
    const [tool, ...argv] = request.argv;
    const before = JSON.stringify(model.state);
    let result: SimResponse;
    if (tool === 'docker') result = docker(model, argv, (path) => readHostFile(host, path), request.cwd);
    else if (tool === 'docker-compose' && model.state.composeV1Version !== undefined)
      result = compose(model, 'v1', argv, (path) => readHostFile(host, path), request.cwd ?? '/root');
    else if (tool === 'systemctl') result = systemctl(model, argv);
    else if (tool === 'reboot') result = { stdout: '', stderr: '', exitCode: 0, after: () => void lab.reboot(host.name) };
    else result = { stdout: '', stderr: `${tool}: command not found\n`, exitCode: 127 };
    // A call that changed nothing (docker version, compose ps) saves nothing and leaves the interfaces: the
    // save and the interface sync start processes in the lab's own process, a cost no real docker CLI has.
    if (JSON.stringify(model.state) !== before) {
      await lab.saveState(host);
      await lab.syncInterfaces(host);
    }
    return result;
  }
  return { stdout: '', stderr: `groundcrew lab: ${request.kind} requests are not for ${host.os} host ${host.name}\n`, exitCode: 255 };
}
