// The sim executors: simulated hosts, no root, no network. SimExecutor runs them in this process (`groundcrew
// demo`, the role unit tests); SocketSimExecutor asks a process of simulated hosts (sim/transports/host-worker.ts)
// over a unix socket (the scale benchmark, `sim.ownProcess`). Windows hosts get exactly what goes over SSH.

import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { errors, markSent } from '../errors.js';
import type { Os } from '../os.js';
import type { HostDescription } from '../sim/cluster.js';
import { LinuxHost } from '../sim/linux/linux-host.js';
import { LinuxShell } from '../sim/linux/linux-shell.js';
import { frame } from '../sim/transports/socket-server.js';
import type { WindowsHost } from '../sim/windows/windows-host.js';
import { WindowsShell } from '../sim/windows/windows-shell.js';
import { commandName, startDeadline } from './deadline.js';
import type { Command, CommandResult, Executor, RunOptions } from './executor.js';
import { powershellCommandLine } from './wire.js';

/** The two simulated shells, loaded once (each parses with a tree-sitter grammar). */
export class SimShells {
  private constructor(
    readonly linux: LinuxShell,
    readonly windows: WindowsShell,
  ) {}

  static async create(): Promise<SimShells> {
    const [linux, windows] = await Promise.all([LinuxShell.create(), WindowsShell.create()]);
    return new SimShells(linux, windows);
  }
}

export interface SimExecutorOptions {
  host: LinuxHost | WindowsHost;
  shells: SimShells;
  /** Simulated round-trip time per command. */
  latencyMs?: number;
  /** How long a reboot keeps the host unreachable. */
  rebootMs?: number;
  /** Called after every command and reboot, e.g. to persist the host's state. */
  onChange?: (host: LinuxHost | WindowsHost) => void;
}

export class SimExecutor implements Executor {
  readonly os: Os;
  readonly stats = { commands: 0, reboots: 0 };
  /** After a dropped connection: connects fail until then (ms since the epoch). */
  #unreachableUntil = 0;
  /** Set to make the host never come back from its next reboot. */
  neverReturnFromReboot = false;

  constructor(private readonly options: SimExecutorOptions) {
    this.os = options.host instanceof LinuxHost ? 'linux' : 'windows';
  }

  get host(): LinuxHost | WindowsHost {
    return this.options.host;
  }

  /**
   * Down while a reboot runs. The reboot is kept in the host's own state (downUntil), not in a timer: the
   * simulated host keeps rebooting, and comes back, whatever happens to the process that drives it.
   */
  get isDown(): boolean {
    const host = this.options.host;
    const until = host.state.downUntil;
    if (until === undefined) return false;
    if (Date.now() < until) return true;
    delete host.state.downUntil;
    host.reboot();
    this.options.onChange?.(host);
    return false;
  }

  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    const started = performance.now();
    const name = this.options.host.state.hostname;
    if (this.isDown) throw markSent(errors.GC_CONNECT(`cannot connect to ${name}: ECONNREFUSED (rebooting)`), false);
    if (Date.now() < this.#unreachableUntil)
      throw markSent(errors.GC_CONNECT(`cannot connect to ${name}: ETIMEDOUT (its address is moving to a vNIC)`), false);
    await this.#roundTrip(opts, commandName(`${name}: `, cmd));
    this.stats.commands++;
    const host = this.options.host;
    const result =
      host instanceof LinuxHost
        ? this.options.shells.linux.run(host, cmd.script, opts.stdin ?? '')
        : this.options.shells.windows.runCommandLine(host, powershellCommandLine(cmd.script), opts.stdin ?? '');
    if (host.rebootRequested) {
      host.rebootRequested = false;
      this.#reboot();
    }
    this.options.onChange?.(host);
    if (!(host instanceof LinuxHost) && host.connectionDropRequested) {
      // The command ran, but its session went with the adapter's address: no exit status reaches us, and the
      // host answers again a moment later.
      host.connectionDropRequested = false;
      this.#unreachableUntil = Date.now() + (this.options.rebootMs ?? 1000);
      throw markSent(errors.GC_CONNECTION_LOST(`${name}: the connection dropped while the command ran; its outcome is unknown`), true);
    }
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, durationMs: performance.now() - started };
  }

  /**
   * The simulated latency, under the command's deadline as the wire would be: it can time out or be cancelled,
   * and then the command has not run (the host runs it after the latency): not sent.
   */
  async #roundTrip(opts: RunOptions, what: string): Promise<void> {
    const pause = new AbortController();
    const deadline = startDeadline(
      opts,
      what,
      () => pause.abort(),
      () => false,
    );
    try {
      const latency = this.options.latencyMs ?? 0;
      if (latency > 0) await sleep(latency, undefined, { signal: pause.signal }).catch(() => undefined);
    } finally {
      deadline.clear();
    }
    if (deadline.error) throw deadline.error;
  }

  /** The host goes down now and comes back (new boot id / boot time) after rebootMs. */
  #reboot(): void {
    this.stats.reboots++;
    this.options.host.state.downUntil = this.neverReturnFromReboot ? Number.MAX_SAFE_INTEGER : Date.now() + (this.options.rebootMs ?? 1000);
  }

  async close(): Promise<void> {}
}

export interface SocketSimExecutorOptions {
  /** The socket of the process that holds the host. */
  socket: string;
  /** The host: made from this the first time the process hears of it. */
  host: HostDescription;
  /** Simulated round-trip time per command. */
  latencyMs?: number;
}

interface Answer {
  stdout: string;
  stderr: string;
  exitCode: number;
  down: boolean;
}

/** A simulated host in another process: one connection per command, as an SSH session per command would be. */
export class SocketSimExecutor implements Executor {
  readonly os: Os;
  readonly stats = { commands: 0, reboots: 0 };

  constructor(private readonly options: SocketSimExecutorOptions) {
    this.os = options.host.os;
  }

  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    const started = performance.now();
    const name = this.options.host.name;
    const what = commandName(`${name}: `, cmd);
    const stop = new AbortController();
    // Sent once the socket to the host process is connected: the command frames follow at once.
    const wire = { connected: false };
    const deadline = startDeadline(
      opts,
      what,
      () => stop.abort(),
      () => wire.connected,
    );
    let answer: Answer | undefined;
    try {
      const latency = this.options.latencyMs ?? 0;
      if (latency > 0) await sleep(latency, undefined, { signal: stop.signal }).catch(() => undefined);
      if (!deadline.error) answer = await this.#ask(cmd, opts.stdin, stop.signal, wire);
    } catch (err) {
      if (!deadline.error) throw this.#lost(err, wire.connected);
    } finally {
      deadline.clear();
    }
    if (deadline.error || !answer) throw deadline.error ?? this.#lost(undefined, wire.connected);
    // The host process answered that the host is down (rebooting): it ran nothing.
    if (answer.down) throw markSent(errors.GC_CONNECT(`cannot connect to ${name}: ECONNREFUSED (rebooting)`), false);
    this.stats.commands++;
    return { exitCode: answer.exitCode, stdout: answer.stdout, stderr: answer.stderr, durationMs: performance.now() - started };
  }

  /**
   * The host process could not be reached (connect refused, EAGAIN when its listen queue is full: nothing was
   * sent), or the connection closed before the exit status (the command went out: its outcome is unknown).
   */
  #lost(err: unknown, connected: boolean) {
    const name = this.options.host.name;
    const why = err instanceof Error ? `: ${err.message}` : '';
    return connected
      ? markSent(errors.GC_CONNECTION_LOST(`the simulated host ${name} did not answer${why}; the command's outcome is unknown`, err), true)
      : markSent(errors.GC_CONNECT(`cannot reach the simulated host ${name}${why}`, err), false);
  }

  #ask(cmd: Command, stdin: string | undefined, signal: AbortSignal, wire: { connected: boolean }): Promise<Answer> {
    const { host, socket: path } = this.options;
    const command = host.os === 'windows' ? powershellCommandLine(cmd.script) : cmd.script;
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => {
        wire.connected = true;
      });
      const onAbort = () => socket.destroy();
      signal.addEventListener('abort', onAbort, { once: true });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let down = false;
      let buffer: Buffer = Buffer.alloc(0);
      let done = false;
      socket.on('data', (chunk: Buffer) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        while (buffer.length >= 5) {
          const length = buffer.readUInt32BE(1);
          if (buffer.length < 5 + length) return;
          const type = String.fromCharCode(buffer[0] ?? 0);
          const payload = buffer.subarray(5, 5 + length);
          buffer = buffer.subarray(5 + length);
          if (type === 'o') out.push(Buffer.from(payload));
          else if (type === 'e') err.push(Buffer.from(payload));
          else if (type === 'D') down = true;
          else if (type === 'i') socket.write(Buffer.concat([frame('i', stdin ?? ''), frame('I', '')]));
          else if (type === 'x') {
            done = true;
            const exitCode = Number(payload.toString('utf8'));
            resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), exitCode, down });
          }
        }
      });
      socket.on('error', (e) => reject(e));
      socket.on('close', () => {
        signal.removeEventListener('abort', onAbort);
        if (!done) reject(new Error(signal.aborted ? 'ended' : 'the connection closed before an exit status'));
      });
      // p: this process, so a host process shared by several daemons can tell who sent each command.
      const head = [
        frame('h', host.name),
        frame('k', host.os === 'windows' ? 'windows' : 'bash'),
        frame('a', JSON.stringify(host)),
        frame('p', String(process.pid)),
      ];
      socket.write(Buffer.concat([...head, frame('a', stdin !== undefined ? 'stdin' : ''), frame('c', command), frame('g', '')]));
    });
  }

  async close(): Promise<void> {}
}
