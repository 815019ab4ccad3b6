// The sim executor: in-process simulated hosts, no root, no network. What `groundcrew demo`, the role
// unit tests and the scale benchmark run against. Windows hosts get exactly what goes over SSH.

import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { errors } from '../errors.js';
import { LinuxHost } from '../sim/linux/linux-host.js';
import { LinuxShell } from '../sim/linux/linux-shell.js';
import type { WindowsHost } from '../sim/windows/windows-host.js';
import { WindowsShell } from '../sim/windows/windows-shell.js';
import { commandName, startDeadline } from './deadline.js';
import type { Command, CommandResult, Executor, NodeOs, RunOptions } from './executor.js';
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
  readonly os: NodeOs;
  readonly stats = { commands: 0, reboots: 0 };
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
    if (this.isDown) throw errors.GC_SSH_CONNECT(`cannot connect to ${name}: ECONNREFUSED (rebooting)`);
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
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, durationMs: performance.now() - started };
  }

  /** The simulated latency, under the command's deadline as the wire would be: it can time out or be cancelled. */
  async #roundTrip(opts: RunOptions, what: string): Promise<void> {
    const pause = new AbortController();
    const deadline = startDeadline(opts, what, () => pause.abort());
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
