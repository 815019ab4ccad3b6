// The SSH executor against real sshd in the lab: connection reuse, drops, timeouts, aborts, host keys, auth.

import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostKeyStore } from '../../src/dataplane/host-keys.js';
import { Limiter } from '../../src/dataplane/limiter.js';
import { SshExecutor, type SshTarget } from '../../src/dataplane/ssh-executor.js';
import { errors } from '../../src/errors.js';
import { LAB_PASSWORD, Lab } from './lab.js';
import { sh } from './netns.js';

let lab: Lab;
const executors: SshExecutor[] = [];

function executor(name: string, overrides: Partial<SshTarget> = {}, hostKeys = new HostKeyStore(null), logs?: unknown[]): SshExecutor {
  const host = lab.host(name);
  const e = new SshExecutor({
    target: { os: host.os, host: host.address, username: host.user, privateKeyPath: lab.privateKey, ...overrides },
    hostKeys,
    connections: new Limiter(100),
    ...(logs ? { log: (event) => logs.push(event) } : {}),
  });
  executors.push(e);
  return e;
}

const run = (e: SshExecutor, script: string, timeoutMs = 10_000) => e.run({ script }, { timeoutMs });
/** A Windows host starts a real pwsh per command: a second or more on a busy machine. */
const WINDOWS_MS = 60_000;

beforeAll(async () => {
  lab = await Lab.start({
    hosts: [
      { name: 'l1', os: 'linux' },
      { name: 'w1', os: 'windows' },
      { name: 'l2', os: 'linux' },
    ],
    rebootMs: 300,
  });
});
afterAll(async () => {
  for (const e of executors) await e.close();
  await lab?.stop();
});

describe('SshExecutor', () => {
  it('runs 1,000 sequential commands over one connection (one handshake)', async () => {
    const e = executor('l1');
    for (let i = 0; i < 1000; i++) {
      const r = await run(e, `echo ${i}`);
      if (r.stdout !== `${i}\n`) throw new Error(`command ${i} answered ${JSON.stringify(r)}`);
    }
    expect(e.stats).toEqual({ connects: 1, commands: 1000 });
    // Seen from the host: one established SSH connection (this one), not a thousand.
    const sessions = await run(e, "ss -Htn state established '( sport = :22 )' | wc -l");
    expect(sessions.stdout.trim()).toBe('1');
  });

  it('runs channels in parallel on one connection, queueing past sshd MaxSessions', async () => {
    const e = executor('l1');
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => run(e, `sleep 0.2; echo ${i}`)));
    expect(results.map((r) => r.stdout)).toEqual(Array.from({ length: 30 }, (_, i) => `${i}\n`));
    expect(e.stats.connects).toBe(1);
  });

  it('keeps stdout, stderr and exit codes apart, and multi-byte text whole', async () => {
    const e = executor('l1');
    const r = await run(e, `printf 'é%.0s' $(seq 1 40000); echo; echo oops >&2; exit 3`);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe(`${'é'.repeat(40000)}\n`);
    expect(r.stderr).toBe('oops\n');
  });

  it('a dropped connection mid-command is GC_CONNECTION_LOST (retryable, sent: its outcome unknown); the next command reconnects', async () => {
    const e = executor('l2');
    await run(e, 'true');
    await lab.fault('l2', { dropAfterMs: 200 });
    await expect(run(e, 'sleep 5; echo finished')).rejects.toMatchObject({ code: 'GC_CONNECTION_LOST', retryable: true, sent: true });
    expect((await run(e, 'echo again')).stdout).toBe('again\n');
    expect(e.stats.connects).toBe(2);
  });

  it('a timeout ends the command on the host and is GC_COMMAND_TIMEOUT', async () => {
    const e = executor('l1');
    await expect(run(e, 'sleep 31.5; echo late', 300)).rejects.toMatchObject({ code: 'GC_COMMAND_TIMEOUT', retryable: true, sent: true });
    await new Promise((r) => setTimeout(r, 300));
    expect((await run(e, 'ps -eo args | grep -c "^sleep 31.5" || true')).stdout.trim()).toBe('0');
  });

  it('an abort ends the command on the host and is GC_COMMAND_ABORTED', async () => {
    const e = executor('l1');
    const controller = new AbortController();
    const pending = e.run({ script: 'sleep 32.5; echo late', label: 'long wait' }, { timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toMatchObject({
      code: 'GC_COMMAND_ABORTED',
      retryable: false,
      sent: true,
      message: expect.stringContaining('long wait'),
    });
    await new Promise((r) => setTimeout(r, 300));
    expect((await run(e, 'ps -eo args | grep -c "^sleep 32.5" || true')).stdout.trim()).toBe('0');
  });

  it('passes stdin to the command (how secrets travel)', async () => {
    const e = executor('l1');
    const r = await e.run({ script: 'read -r secret; printf "%s" "${#secret}"' }, { timeoutMs: 5000, stdin: 'hunter2\n' });
    expect(r.stdout).toBe('7');
  });

  it('pins the host key on first use and refuses a changed one, naming both fingerprints', async () => {
    const keys = new HostKeyStore(null);
    const first = executor('l2', {}, keys);
    await run(first, 'true');
    await first.close();
    await lab.rekey('l2');
    const second = executor('l2', {}, keys);
    const failure = run(second, 'true');
    await expect(failure).rejects.toMatchObject({ code: 'GC_SSH_HOSTKEY_MISMATCH', retryable: false, sent: false });
    await expect(failure).rejects.toThrow(/presented host key SHA256:\S+, but SHA256:\S+ was pinned on first use/);
    // The way out it names: the command that re-pins, with the key presented.
    await expect(failure).rejects.toThrow(/groundcrew hosts trust \S+:22 --fingerprint SHA256:\S+\)$/);
  });

  it('a truncated pin file refuses SSH to every host with GC_SSH_PINS_UNREADABLE, re-pins nothing, keeps the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gc-state-'));
    const file = join(dir, 'known-hosts.json');
    await run(executor('l1', {}, new HostKeyStore(file)), 'true');
    const whole = await readFile(file, 'utf8');
    const truncated = whole.slice(0, whole.length - 20);
    await writeFile(file, truncated);
    for (const name of ['l1', 'l2']) {
      const failure = run(executor(name, {}, new HostKeyStore(file)), 'true');
      await expect(failure).rejects.toMatchObject({ code: errors.GC_SSH_PINS_UNREADABLE.code, retryable: false });
      await expect(failure).rejects.toThrow(new RegExp(`host key pin file ${file} is not valid JSON.*restore it from a backup`));
    }
    expect(await readFile(file, 'utf8')).toBe(truncated);
    expect(await readdir(dir)).toEqual(['known-hosts.json']);
  });

  it('logs in with a password; a wrong one is GC_SSH_AUTH and terminal', { timeout: 180_000 }, async () => {
    const good = executor('w1', { privateKeyPath: undefined, password: LAB_PASSWORD });
    expect((await run(good, '(Get-CimInstance -ClassName Win32_OperatingSystem).CSName', WINDOWS_MS)).stdout).toBe('w1\r\n');
    const bad = executor('w1', { privateKeyPath: undefined, password: 'wrong-password' });
    await expect(run(bad, 'hostname', WINDOWS_MS)).rejects.toMatchObject({ code: 'GC_SSH_AUTH', retryable: false, sent: false });
  });

  it('holds to the global cap on open connections, and an idle connection gives its slot back', async () => {
    const cap = new Limiter(1);
    const make = (name: string) => {
      const host = lab.host(name);
      const e = new SshExecutor({
        target: { os: host.os, host: host.address, username: host.user, privateKeyPath: lab.privateKey },
        hostKeys: new HostKeyStore(null),
        connections: cap,
        idleCloseMs: 300,
      });
      executors.push(e);
      return e;
    };
    const [a, b] = [make('l1'), make('l2')];
    await run(a, 'true');
    expect(cap.active).toBe(1);
    const started = Date.now();
    // b must wait for a's connection to go idle and close before it may connect.
    expect((await run(b, 'echo b')).stdout).toBe('b\n');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(cap.active).toBe(1);
  });

  it('keeps host key pins in the state directory across restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gc-state-'));
    const file = join(dir, 'known-hosts.json');
    await run(executor('l1', {}, new HostKeyStore(file)), 'true');
    const pins = JSON.parse(await readFile(file, 'utf8')) as Record<string, { fingerprint: string; pinnedAt: string }>;
    expect(Object.keys(pins)).toEqual([`${lab.host('l1').address}:22`]);
    const pin = Object.values(pins)[0];
    expect(pin?.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(Date.parse(pin?.pinnedAt ?? '')).not.toBeNaN();
    expect(new HostKeyStore(file).check(`${lab.host('l1').address}:22`, 'SHA256:someone-else')).toMatchObject({
      ok: false,
      pinned: pin?.fingerprint,
    });
  });

  it('an unreachable host is GC_SSH_CONNECT, retryable, and never sent', async () => {
    const e = executor('l1', { port: 2 });
    await expect(run(e, 'true')).rejects.toMatchObject({ code: 'GC_SSH_CONNECT', retryable: true, sent: false });
  });

  it('a command queued behind a closed fence is refused before its first byte (not sent), and the connection stays', async () => {
    const host = lab.host('l1');
    let open = true;
    const e = new SshExecutor({
      target: { os: host.os, host: host.address, username: host.user, privateKeyPath: lab.privateKey },
      hostKeys: new HostKeyStore(null),
      connections: new Limiter(100),
      mayWrite: () => open,
    });
    executors.push(e);
    await run(e, 'true');
    open = false;
    await expect(run(e, 'touch /tmp/gc-fenced-marker')).rejects.toMatchObject({ code: 'GC_CLUSTER_FENCED', sent: false });
    open = true;
    expect((await run(e, 'test -e /tmp/gc-fenced-marker && echo ran || echo never')).stdout).toBe('never\n');
    expect(e.stats.connects).toBe(1);
  });

  it('never puts the password in any process arguments on either side, nor in its logs', async () => {
    const password = LAB_PASSWORD;
    const logs: unknown[] = [];
    const e = executor('l1', { privateKeyPath: undefined, password }, new HostKeyStore(null), logs);
    const pending = run(e, 'sleep 1; echo done');
    await new Promise((r) => setTimeout(r, 400));
    // Client and server both run on this machine: every process's arguments are in /proc.
    const cmdlines = await sh('sh', ['-c', 'cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " "']);
    expect(cmdlines).toContain('sleep 1; echo done');
    expect(cmdlines).not.toContain(password);
    expect((await pending).stdout).toBe('done\n');
    expect(JSON.stringify(logs)).not.toContain(password);
    expect(logs.length).toBeGreaterThan(0);
  });

  it('runs PowerShell on Windows hosts as -EncodedCommand with errors made terminating', { timeout: 180_000 }, async () => {
    const e = executor('w1');
    const ok = await run(e, "Get-Service -Name 'winnat' | Select-Object -Property 'Name' | ConvertTo-Json -Compress", WINDOWS_MS);
    expect(ok).toMatchObject({ exitCode: 0, stdout: '{"Name":"winnat"}\r\n' });
    const failed = await run(e, "Get-Service -Name 'nope'\n'not reached'", WINDOWS_MS);
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toBe('');
    const lastScript = (await lab.commandLog('w1')).at(-1) ?? '';
    expect(lastScript.startsWith("$ErrorActionPreference = 'Stop'")).toBe(true);
    expect(await readFile(lab.host('w1').paths.commandLog, 'utf8')).not.toContain('-EncodedCommand');
  });
});
