// The SSH executor: one persistent connection per node (node-ssh over ssh2), commands as channels on it.
//
// node-ssh makes the connection; commands use ssh2's channel directly, because node-ssh's execCommand
// decodes each chunk separately (a multi-byte character split across chunks is mangled) and cannot tell
// a dropped connection from a command that exited.

import { type Socket, connect as tcpConnect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { NodeSSH } from 'node-ssh';
import type { ClientChannel } from 'ssh2';
import { errors, GroundcrewError, markSent } from '../errors.js';
import type { Os } from '../os.js';
import { stderrText } from './clixml.js';
import { cancelled, commandName, startDeadline } from './deadline.js';
import type { Command, CommandResult, Executor, ExecutorLog, RunOptions } from './executor.js';
import { checkHostKey, fingerprint, type HostKeyVerdict, type PinStore } from './host-keys.js';
import { Limiter } from './limiter.js';
import { wireCommand } from './wire.js';

export interface SshTarget {
  os: Os;
  host: string;
  port?: number;
  username: string;
  privateKeyPath?: string;
  /** Given to ssh2 in this process only: never on a command line, never logged. */
  password?: string;
}

export interface SshExecutorOptions {
  target: SshTarget;
  /** The node's name: recorded with its pin, and named in the command that re-pins it. */
  node?: string;
  /** The pin file, or in cluster mode the pins every member shares in etcd. */
  hostKeys: PinStore;
  /** The global cap on open connections, shared by every SSH executor of the daemon. */
  connections: Limiter;
  connectTimeoutMs?: number;
  keepaliveMs?: number;
  /** Below sshd's default MaxSessions (10): an eleventh channel on one connection is refused. */
  maxChannels?: number;
  /** Close the connection after this long without a command, giving its slot back. */
  idleCloseMs?: number;
  log?: ExecutorLog;
  /**
   * Cluster mode's fence, checked before every write to the node's socket: false, and the connection is
   * dropped instead of sending anything (a command queued before a pause never leaves after it).
   */
  mayWrite?: () => boolean;
}

const SIGNALS: Record<string, number> = { HUP: 1, INT: 2, QUIT: 3, KILL: 9, PIPE: 13, TERM: 15 };

/**
 * Linux commands first tell us their shell's PID on stderr, between two RS bytes. sshd makes that shell a
 * session leader, so ending a timed-out or cancelled command is `kill -- -PID` on a second channel:
 * OpenSSH ignores the SSH "signal" request and leaves a command running when its channel closes.
 */
const PID_MARK = '\x1e';
const PID_PREFIX = `printf '\\036%s\\036' "$$" >&2\n`;

function takePid(stderr: Buffer): { pid?: number; rest: Buffer } {
  if (stderr[0] !== PID_MARK.charCodeAt(0)) return { rest: stderr };
  const end = stderr.indexOf(PID_MARK, 1);
  const pid = Number(stderr.subarray(1, end).toString('latin1'));
  return end > 1 && Number.isInteger(pid) ? { pid, rest: stderr.subarray(end + 1) } : { rest: stderr };
}

/**
 * ssh2's exec opens a channel, then asks for the command on it. The server refusing the channel
 * ("(SSH) Channel open failure: ...") or the exec request ("Unable to exec") is a command that never ran; any
 * other failure ("No response from server": the connection went while waiting) may come after the request left.
 */
function refusedBeforeExec(err: Error | undefined): boolean {
  return err !== undefined && (err.message.startsWith('(SSH) Channel open failure') || err.message === 'Unable to exec');
}

export class SshExecutor implements Executor {
  readonly os: Os;
  readonly stats = { connects: 0, commands: 0 };
  readonly #channels: Limiter;
  #ssh: NodeSSH | undefined;
  #connecting: Promise<NodeSSH> | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(private readonly options: SshExecutorOptions) {
    this.os = options.target.os;
    this.#channels = new Limiter(options.maxChannels ?? 8);
  }

  get endpoint(): string {
    return `${this.options.target.host}:${this.options.target.port ?? 22}`;
  }

  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    const started = performance.now();
    if (opts.signal?.aborted) throw cancelled(this.#commandName(cmd), false);
    const wire = this.os === 'linux' ? PID_PREFIX + cmd.script : wireCommand(this.os, cmd.script);
    await this.#channels.acquire(opts.signal).catch(() => {
      throw cancelled(this.#commandName(cmd), false);
    });
    try {
      // No connection (refused, timed out, the host key or the credentials refused): nothing was sent.
      const ssh = await this.#connection().catch((err: unknown) => {
        throw err instanceof GroundcrewError ? markSent(err, false) : err;
      });
      this.stats.commands++;
      return await this.#exec(ssh, wire, cmd, opts, started);
    } finally {
      this.#channels.release();
      this.#armIdleClose();
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    this.#disconnect();
  }

  // ---- connection ----

  #connection(): Promise<NodeSSH> {
    if (this.#ssh?.isConnected()) return Promise.resolve(this.#ssh);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(): Promise<NodeSSH> {
    const { target, hostKeys } = this.options;
    // No pins to check against: no connection at all (throws GC_SSH_PINS_UNREADABLE, or GC_SSH_HOSTKEY_MISMATCH
    // for an endpoint whose pins disagree). In cluster mode this also reads the shared pin ahead of the handshake.
    await hostKeys.lookup(this.endpoint);
    await this.options.connections.acquire();
    let mismatch: { pinned: string; presented: string } | undefined;
    let unreadable: unknown;
    try {
      const sock = await this.#socket();
      const ssh = new NodeSSH();
      await ssh.connect({
        sock,
        host: target.host,
        port: target.port ?? 22,
        username: target.username,
        ...(target.privateKeyPath ? { privateKeyPath: target.privateKeyPath } : {}),
        ...(target.password !== undefined ? { password: target.password } : {}),
        tryKeyboard: false,
        readyTimeout: this.options.connectTimeoutMs ?? 10_000,
        keepaliveInterval: this.options.keepaliveMs ?? 15_000,
        keepaliveCountMax: 3,
        // Answered through the callback: the pin store may be etcd (ssh2 waits for it within readyTimeout).
        hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
          checkHostKey(hostKeys, this.endpoint, fingerprint(key), this.options.node).then(
            (verdict: HostKeyVerdict) => {
              if (!verdict.ok) mismatch = verdict;
              else if (verdict.pinnedNow)
                this.options.log?.({
                  level: 'info',
                  msg: 'host key pinned on first use',
                  endpoint: this.endpoint,
                  fingerprint: fingerprint(key),
                });
              verify(verdict.ok);
            },
            (err: unknown) => {
              // The pins broke (or etcd stopped answering) since the check above: refuse, and say why.
              unreadable = err;
              verify(false);
            },
          );
        },
      });
      const client = ssh.connection;
      // One 'close' listener per command in flight, up to maxChannels of them.
      client?.setMaxListeners(64);
      client?.on('close', () => this.#onClose(ssh));
      client?.on('error', (err) =>
        this.options.log?.({ level: 'warn', msg: 'ssh connection error', endpoint: this.endpoint, err: err.message }),
      );
      this.#ssh = ssh;
      this.stats.connects++;
      this.options.log?.({ level: 'debug', msg: 'ssh connected', endpoint: this.endpoint, connects: this.stats.connects });
      return ssh;
    } catch (err) {
      this.options.connections.release();
      if (unreadable) throw unreadable;
      throw this.#connectError(err, mismatch);
    }
  }

  /** Our own socket, so TCP_NODELAY is set: ssh2 leaves Nagle on, which costs ~40 ms per round trip. */
  #socket(): Promise<Socket> {
    const { host, port = 22 } = this.options.target;
    return new Promise((resolve, reject) => {
      const sock = tcpConnect({ host, port });
      sock.setNoDelay(true);
      const { mayWrite } = this.options;
      if (mayWrite) {
        const write = sock.write.bind(sock) as (...args: unknown[]) => boolean;
        sock.write = ((...args: unknown[]) => {
          if (mayWrite()) return write(...args);
          sock.destroy(errors.GC_CLUSTER_FENCED(`${host}:${port}: this member may not change the node now; nothing sent`));
          return false;
        }) as typeof sock.write;
      }
      const timer = setTimeout(() => {
        sock.destroy();
        reject(Object.assign(new Error(`connect to ${host}:${port} timed out`), { code: 'ETIMEDOUT' }));
      }, this.options.connectTimeoutMs ?? 10_000);
      sock.once('connect', () => {
        clearTimeout(timer);
        resolve(sock);
      });
      sock.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  #connectError(err: unknown, mismatch: { pinned: string; presented: string } | undefined): GroundcrewError {
    const e = err as Error & { level?: string; code?: string };
    // The fence closed during the handshake (mayWrite): say so, not "cannot connect".
    if (err instanceof GroundcrewError && err.code === errors.GC_CLUSTER_FENCED.code) return err;
    if (mismatch) {
      return errors.GC_SSH_HOSTKEY_MISMATCH(
        `${this.endpoint} presented host key ${mismatch.presented}, but ${mismatch.pinned} was pinned on first use: refusing to connect ` +
          `(if the node was reinstalled, check its new key out of band, then: groundcrew hosts trust ${this.options.node ?? this.endpoint} --fingerprint ${mismatch.presented})`,
        err,
      );
    }
    if (e.level === 'client-authentication') {
      return errors.GC_SSH_AUTH(`${this.options.target.username}@${this.endpoint} refused the credentials (${e.message})`, err);
    }
    return errors.GC_CONNECT(`cannot connect to ${this.endpoint}: ${e.code ?? e.message}`, err);
  }

  #onClose(ssh: NodeSSH): void {
    if (this.#ssh !== ssh) return;
    this.#ssh = undefined;
    this.options.connections.release();
    if (!this.#closed) this.options.log?.({ level: 'info', msg: 'ssh connection closed', endpoint: this.endpoint });
  }

  #disconnect(): void {
    const ssh = this.#ssh;
    if (!ssh) return;
    this.#onClose(ssh);
    ssh.dispose();
  }

  #armIdleClose(): void {
    clearTimeout(this.#idleTimer);
    const idle = this.options.idleCloseMs;
    if (idle === undefined || this.#closed) return;
    this.#idleTimer = setTimeout(() => {
      if (this.#channels.active === 0) this.#disconnect();
    }, idle);
    this.#idleTimer.unref();
  }

  // ---- commands ----

  #exec(ssh: NodeSSH, wire: string, cmd: Command, opts: RunOptions, started: number): Promise<CommandResult> {
    const client = ssh.connection;
    if (!client) return Promise.reject(markSent(errors.GC_CONNECTION_LOST(`${this.endpoint}: not connected`), false));
    // The fence closed while the command waited for its connection or channel: refuse it here, before its first
    // byte, rather than have mayWrite drop the connection under it (which would leave its outcome unknown).
    if (this.options.mayWrite?.() === false)
      return Promise.reject(
        markSent(errors.GC_CLUSTER_FENCED(`${this.#commandName(cmd)}: this member may not change the node now; nothing sent`), false),
      );
    return new Promise((resolve, reject) => {
      let channel: ClientChannel | undefined;
      let ended: GroundcrewError | undefined;
      let exit: { code: number | null; signal?: string } | undefined;
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      const label = cmd.label ? ` (${cmd.label})` : '';

      let done = false;
      const finish = (error?: GroundcrewError) => {
        if (done) return;
        done = true;
        deadline.clear();
        client.removeListener('close', onConnectionClose);
        if (error) reject(error);
        else {
          const code = exit?.code ?? (exit?.signal ? 128 + (SIGNALS[exit.signal] ?? 0) : 255);
          const err = takePid(Buffer.concat(stderr)).rest;
          resolve({
            exitCode: code,
            stdout: Buffer.concat(stdout).toString('utf8'),
            stderr: stderrText(err.toString('utf8')),
            durationMs: performance.now() - started,
          });
        }
      };
      const end = (error: GroundcrewError) => {
        if (ended) return;
        ended = error;
        // End the remote command: a KILL request where the server honours it, then the channel itself.
        try {
          channel?.signal('KILL');
        } catch {
          // the channel is already gone
        }
        channel?.close();
        const { pid } = takePid(Buffer.concat(stderr));
        if (pid !== undefined) this.#killRemote(client, pid);
        // Do not wait for the server to confirm the close: the caller learns now, the channel goes in the background.
        finish(error);
      };
      // Also refuses a caller that cancelled while the connection was being made: the command has not started.
      const deadline = startDeadline(opts, this.#commandName(cmd), end);
      const onConnectionClose = () => {
        if (!exit && !ended)
          ended = markSent(
            errors.GC_CONNECTION_LOST(`${this.endpoint}: the connection dropped while a command${label} ran; its outcome is unknown`),
            true,
          );
      };
      client.on('close', onConnectionClose);

      this.#openChannel(client, wire, (err, ch) => {
        if (err || !ch) {
          const refused = errors.GC_CONNECTION_LOST(`${this.endpoint}: could not open a channel: ${err?.message}`, err);
          finish(ended ?? markSent(refused, !refusedBeforeExec(err)));
          return;
        }
        channel = ch;
        if (ended) {
          ch.close();
        }
        ch.on('data', (chunk: Buffer) => stdout.push(chunk));
        ch.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
        ch.on('exit', (code: number | null, signal?: string) => {
          exit = { code, ...(signal ? { signal } : {}) };
        });
        ch.on('close', () => {
          if (ended) finish(ended);
          else if (!exit)
            finish(
              markSent(
                errors.GC_CONNECTION_LOST(`${this.endpoint}: the command${label} ended without an exit status (connection lost)`),
                true,
              ),
            );
          else finish();
        });
        if (opts.stdin !== undefined) ch.end(opts.stdin);
        else ch.end();
      });
    });
  }

  /**
   * Opens an exec channel. sshd frees a session slot a moment after its channel closes, so a refusal
   * ("open failed", MaxSessions) is retried briefly: the command has not started, retrying is safe.
   */
  #openChannel(
    client: NonNullable<NodeSSH['connection']>,
    wire: string,
    done: (err: Error | undefined, ch?: ClientChannel) => void,
    attempt = 0,
  ): void {
    client.exec(wire, (err, ch) => {
      if (err && /open failed/i.test(err.message) && attempt < 20) {
        setTimeout(() => this.#openChannel(client, wire, done, attempt + 1), 25 * (attempt + 1));
        return;
      }
      done(err, ch);
    });
  }

  /** Ends a command's whole process group on the node, over a channel of its own. */
  #killRemote(client: NonNullable<NodeSSH['connection']>, pid: number): void {
    this.#openChannel(client, `kill -KILL -- -${pid} 2>/dev/null || kill -KILL ${pid} 2>/dev/null; true`, (err, ch) => {
      if (err || !ch) return;
      ch.on('data', () => undefined);
      ch.stderr.on('data', () => undefined);
      ch.end();
    });
  }

  #commandName(cmd: Command): string {
    return commandName(`${this.endpoint}: `, cmd);
  }
}
