// A process of simulated hosts (issue 18): the hosts and their shells run here, not in the daemon, answering
// over the socket protocol of socket-server.ts, so the daemon's memory and event loop are the daemon's own.
// Usage: host-worker SOCKET REBOOT_MS [STATE_DIR]; sends "ready" over IPC once it listens.
// A request names its host (h), the shell (k: bash | windows), the host's description as JSON (first a), whether
// it brings standard input (second a: stdin), and the script or command line (c).

import { type HostDescription, type SimHost, SimHosts } from '../cluster.js';
import { LinuxHost } from '../linux/linux-host.js';
import { LinuxShell } from '../linux/linux-shell.js';
import { WindowsShell } from '../windows/windows-shell.js';
import { type SimRequest, type SimResponse, SimSocketServer } from './socket-server.js';

const [socket = '', rebootText = '1000', dir] = process.argv.slice(2);
const rebootMs = Number(rebootText);
const hosts = new SimHosts(dir);
const [linux, windows] = await Promise.all([LinuxShell.create(), WindowsShell.create()]);
// Hosts the parent asked to hear of ({ watch: [names] }): each request to one is reported over IPC when it
// arrives, with the pid of the process that sent it (the HA benchmark times a failover by these).
const watched = new Set<string>();
process.on('message', (message: { watch?: string[] }) => {
  for (const name of message.watch ?? []) watched.add(name);
});

/** Down while a reboot runs; kept in the host's state (as SimExecutor does), and back once the time is past. */
function isDown(host: SimHost, name: string): boolean {
  const until = host.state.downUntil;
  if (until === undefined) return false;
  if (Date.now() < until) return true;
  delete host.state.downUntil;
  host.reboot();
  if (dir) hosts.save(name);
  return false;
}

async function answer(request: SimRequest): Promise<SimResponse> {
  if (watched.has(request.host)) process.send?.({ call: { host: request.host, at: Date.now(), pid: request.parentPid } });
  const description = JSON.parse(request.argv[0] ?? '{}') as HostDescription;
  if (description.name !== request.host) return { stdout: '', stderr: `host-worker: no description of ${request.host}\n`, exitCode: 255 };
  const host = hosts.host(description);
  if (isDown(host, request.host)) return { stdout: '', stderr: '', exitCode: 255, down: true };
  const stdin = request.argv[1] === 'stdin' ? await request.readStdin() : '';
  const command = request.command ?? '';
  const result =
    host instanceof LinuxHost && request.kind === 'bash'
      ? linux.run(host, command, stdin)
      : !(host instanceof LinuxHost) && request.kind === 'windows'
        ? windows.runCommandLine(host, command, stdin)
        : { stdout: '', stderr: `host-worker: ${request.host} has no ${request.kind} shell\n`, exitCode: 255 };
  if (host.rebootRequested) {
    host.rebootRequested = false;
    host.state.downUntil = Date.now() + rebootMs;
  }
  if (dir) hosts.save(request.host);
  return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode };
}

const server = await SimSocketServer.listen(socket, answer);
process.send?.('ready');
// The parent going away ends the worker: simulated hosts never outlive the daemon that started them here.
process.on('disconnect', () => {
  void server.close().finally(() => process.exit(0));
});
