// A real HTTP proxy on loopback: Debian's tinyproxy in the foreground, logging each request it forwards to a
// file of the test's own. It runs as the test's user (no `User` line: as root it warns and stays root, where
// the `tinyproxy` user could not write a log inside the test's private temporary directory).

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, untilListening } from './ports.js';

export interface Tinyproxy {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The request lines the proxy logged ("GET http://127.0.0.1:…/repo.git/info/refs?…"). */
  requests(): string[];
  stop(): Promise<void>;
}

/**
 * `connectPorts`: the ports CONNECT may reach; Debian's default (443 and 563) unless a test's TLS server, on a port
 * of its own, needs `'any'`.
 */
export async function startTinyproxy(
  dir: string,
  { connectPorts = [443, 563] }: { connectPorts?: number[] | 'any' } = {},
): Promise<Tinyproxy> {
  mkdirSync(dir, { recursive: true });
  const log = join(dir, 'tinyproxy.log');
  writeFileSync(log, '');
  const port = await freePort();
  const config = join(dir, 'tinyproxy.conf');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 60',
      `LogFile "${log}"`,
      'LogLevel Info',
      'MaxClients 20',
      'Allow 127.0.0.1',
      'ViaProxyName "tinyproxy"',
      // As Debian's /etc/tinyproxy/tinyproxy.conf has it: CONNECT to the TLS ports only (a tunnel to any other
      // port is refused with 403), so a client that tunnels plain http fails here as it does at a real site.
      // No ConnectPort line at all allows every port.
      ...(connectPorts === 'any' ? [] : connectPorts.map((p) => `ConnectPort ${p}`)),
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('tinyproxy', ['-d', '-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  await untilListening(port, child, () => stderr);
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .flatMap((line) => /Request \(file descriptor \d+\): (.*)$/.exec(line)?.[1] ?? []),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    },
  };
}
