// Simulated hosts in a process of their own (issue 18): the daemon's executors reach them over the socket
// protocol of sim/transports/socket-server.ts, and get what the in-process simulator gives: the same output,
// standard input, reboots as unreachable hosts, deadlines and cancels.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells, SocketSimExecutor } from '../../../src/dataplane/sim-executor.js';
import { LinuxHost } from '../../../src/sim/linux/linux-host.js';
import { HostProcess } from '../../../src/sim/transports/host-process.js';
import { WindowsHost } from '../../../src/sim/windows/windows-host.js';
import { waitUntil } from '../../support/wait-until.js';

let dir: string;
let hosts: HostProcess;
let shells: SimShells;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gc-socket-sim-'));
  [hosts, shells] = await Promise.all([HostProcess.start({ socketDir: dir, rebootMs: 300 }), SimShells.create()]);
});
afterAll(() => {
  hosts.stop();
  rmSync(dir, { recursive: true, force: true });
});

const linux = (name: string, latencyMs = 0) =>
  new SocketSimExecutor({ socket: hosts.socket, host: { name, os: 'linux', address: '192.0.2.40' }, latencyMs });

describe('SocketSimExecutor and the host process', () => {
  it('answers a Linux script as the in-process simulator does, and keeps the host between commands', async () => {
    const remote = linux('l1');
    const local = new SimExecutor({ host: LinuxHost.fresh('l1'), shells });
    const script = "mkdir -p /etc/gc && printf 'a b\\n' > /etc/gc/x && cat /etc/gc/x; uname -s; exit 3";
    const [r, l] = [await remote.run({ script }, { timeoutMs: 5000 }), await local.run({ script }, { timeoutMs: 5000 })];
    expect({ out: r.stdout, err: r.stderr, code: r.exitCode }).toEqual({ out: l.stdout, err: l.stderr, code: l.exitCode });
    expect(r.exitCode).toBe(3);
    expect((await remote.run({ script: 'cat /etc/gc/x' }, { timeoutMs: 5000 })).stdout).toBe('a b\n');
    expect(remote.stats.commands).toBe(2);
  });

  it('hands standard input over only when asked, and Windows hosts get the PowerShell command line', async () => {
    const remote = linux('l2');
    expect((await remote.run({ script: 'cat' }, { timeoutMs: 5000, stdin: 's3cret' })).stdout).toBe('s3cret');
    const windows = new SocketSimExecutor({ socket: hosts.socket, host: { name: 'w1', os: 'windows', address: '192.0.2.41' } });
    const local = new SimExecutor({ host: WindowsHost.fresh({ hostname: 'w1' }), shells });
    const script = "Get-Service -Name 'nope'\n'not reached'";
    const [r, l] = [await windows.run({ script }, { timeoutMs: 5000 }), await local.run({ script }, { timeoutMs: 5000 })];
    expect({ out: r.stdout, err: r.stderr, code: r.exitCode }).toEqual({ out: l.stdout, err: l.stderr, code: l.exitCode });
    expect(r.stderr).toMatch(/Cannot find any service with service name 'nope'/);
  });

  it('a reboot makes the host unreachable, then it returns with a new boot id', async () => {
    const remote = linux('l3');
    const bootId = async () => (await remote.run({ script: 'cat /proc/sys/kernel/random/boot_id' }, { timeoutMs: 5000 })).stdout;
    const before = await bootId();
    await remote.run({ script: 'reboot' }, { timeoutMs: 5000 });
    await expect(remote.run({ script: 'true' }, { timeoutMs: 5000 })).rejects.toMatchObject({ code: 'GC_CONNECT', retryable: true });
    await waitUntil('the host back with a new boot id', async () => (await bootId()) !== before);
  });

  it('a watched host is reported with each request and the pid of its sender; other hosts are not', async () => {
    const calls: { host: string; at: number; pid?: number }[] = [];
    hosts.watch(['l6'], (call) => calls.push(call));
    const before = Date.now();
    await linux('l7').run({ script: 'true' }, { timeoutMs: 5000 });
    await linux('l6').run({ script: 'true' }, { timeoutMs: 5000 });
    await waitUntil('a report of the watched host', () => calls.length > 0);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ host: 'l6', pid: process.pid });
    expect(calls[0]?.at).toBeGreaterThanOrEqual(before);
  });

  it('latency counts against the timeout, a cancel ends the command, and a process that is not there is unreachable', async () => {
    const slow = linux('l4', 200);
    await expect(slow.run({ script: 'true' }, { timeoutMs: 50 })).rejects.toMatchObject({ code: 'GC_COMMAND_TIMEOUT', sent: false });
    const controller = new AbortController();
    const pending = slow.run({ script: 'true' }, { timeoutMs: 1000, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'GC_COMMAND_ABORTED', sent: false });
    expect(slow.stats.commands).toBe(0);
    const nowhere = new SocketSimExecutor({ socket: join(dir, 'none.sock'), host: { name: 'l5', os: 'linux', address: '192.0.2.42' } });
    // A socket that is not there, or a full listen queue (EAGAIN at 10,000 nodes): connect fails, nothing was sent.
    await expect(nowhere.run({ script: 'true' }, { timeoutMs: 1000 })).rejects.toMatchObject({ code: 'GC_CONNECT', sent: false });
  });

  it('a host process that takes the command and closes without an exit status: GC_CONNECTION_LOST, sent', async () => {
    const path = join(dir, 'drops.sock');
    const received: Buffer[] = [];
    const server = createServer((socket) =>
      socket.on('data', (chunk) => {
        received.push(chunk);
        socket.destroy();
      }),
    );
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const dropping = new SocketSimExecutor({ socket: path, host: { name: 'l8', os: 'linux', address: '192.0.2.43' } });
      await expect(dropping.run({ script: 'reboot' }, { timeoutMs: 5000 })).rejects.toMatchObject({
        code: 'GC_CONNECTION_LOST',
        retryable: true,
        sent: true,
      });
      expect(Buffer.concat(received).toString('latin1')).toContain('reboot');
    } finally {
      server.close();
    }
  });
});
