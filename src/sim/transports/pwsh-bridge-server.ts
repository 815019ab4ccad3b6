// The simulated hosts' side of real pwsh: a unix socket where groundcrew's Windows module (real-pwsh/runtime.ps1)
// asks, one JSON line per request and per answer. A connection is one pwsh process: one powershell.exe session
// (what it imported with Import-Module lasts as long as it).

import { unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { Registry } from '../shells/powershell/commands.js';
import { MODULE_OF, moduleAvailable } from '../windows/modules.js';
import { answerCmdlet, answerMethod, answerNative, type CmdletRequest, nativeOf } from '../windows/real-pwsh/cmdlet-answers.js';
import type { KeepMethod, Wire } from '../windows/real-pwsh/wire-values.js';
import { newSession, type WindowsHost } from '../windows/windows-host.js';
import { windowsRegistry } from '../windows/windows-shell.js';
import { PipeListeners } from './pipe-listeners.js';

/** Programs of the Windows GUI subsystem: `& msiexec ...` returns at once and leaves $LASTEXITCODE alone. */
const GUI_PROGRAMS = new Set(['msiexec', 'msiexec.exe']);

export interface PwshBridgeOptions {
  /** The simulated host a request names (GC_SIM_HOST of the pwsh process). */
  hostOf(name: string): WindowsHost | undefined;
  /** After every request a host answered (the lab saves its state). */
  answered?(name: string): void;
  /**
   * The TMPDIR of the host's pwsh processes, where its served pipes listen (pipe-listeners.ts); without one the
   * host serves no pipe to real pwsh.
   */
  pipeDirOf?(name: string): string | undefined;
}

type Request = {
  op: string;
  host?: string;
  name?: string;
  names?: string[];
  argv?: string[];
  id?: string;
  argList?: Wire[];
} & Partial<CmdletRequest>;

/** One pwsh process's session: what it imported, and the methods of the simulated objects it was given. */
interface Session {
  state: WindowsHost['session'];
  methods: Map<string, (...args: unknown[]) => unknown>;
  keep: KeepMethod;
}

export class PwshBridgeServer {
  readonly #sockets = new Set<Socket>();
  readonly #registry: Registry<WindowsHost> = windowsRegistry();
  readonly #pipes = new Map<string, PipeListeners>();

  private constructor(
    readonly path: string,
    private readonly server: Server,
    private readonly options: PwshBridgeOptions,
  ) {}

  static listen(path: string, options: PwshBridgeOptions): Promise<PwshBridgeServer> {
    try {
      unlinkSync(path);
    } catch {
      // no stale socket
    }
    const server = createServer();
    const bridge = new PwshBridgeServer(path, server, options);
    server.on('connection', (socket) => bridge.#serve(socket));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve(bridge));
    });
  }

  get registry(): Registry<WindowsHost> {
    return this.#registry;
  }

  #serve(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    // A fresh powershell.exe's state per connection (one per pwsh process).
    const methods = new Map<string, (...args: unknown[]) => unknown>();
    const session: Session = {
      state: newSession(),
      methods,
      keep: (call) => {
        const id = `m${methods.size + 1}`;
        methods.set(id, call);
        return id;
      },
    };
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        socket.write(`${JSON.stringify(this.#answer(line, session))}\n`);
      }
    });
  }

  #answer(line: string, session: Session): unknown {
    let request: Request;
    try {
      request = JSON.parse(line) as Request;
    } catch {
      return { events: [], refused: 'groundcrew sim: the bridge got a line that is not JSON' };
    }
    const host = this.options.hostOf(request.host ?? '');
    if (!host) return { events: [], refused: `groundcrew sim: no simulated Windows host named '${request.host}'` };
    host.session = session.state;
    try {
      return this.#answerFor(host, request, session);
    } catch (err) {
      return { events: [], refused: `groundcrew sim: internal error: ${(err as Error).stack ?? err}` };
    } finally {
      this.syncPipes(request.host ?? '');
      this.options.answered?.(request.host ?? '');
    }
  }

  /**
   * Listens for the pipes host `name` serves now, and for no others. Called after every request here, and by the
   * native programs' server after each run (`sc.exe start docker` changes what is served).
   */
  syncPipes(name: string): void {
    const host = this.options.hostOf(name);
    const dir = this.options.pipeDirOf?.(name);
    if (!host || !dir) return;
    let listeners = this.#pipes.get(dir);
    if (!listeners) {
      listeners = new PipeListeners(dir);
      this.#pipes.set(dir, listeners);
    }
    listeners.sync(host.pipes().filter((p) => !(p === 'Contrail' && host.state.faults.pipeNotServing)));
  }

  /** Stops listening for host `name`'s pipes (its sessions are over). */
  releasePipes(name: string): void {
    const dir = this.options.pipeDirOf?.(name);
    if (!dir) return;
    this.#pipes.get(dir)?.close();
    this.#pipes.delete(dir);
  }

  #answerFor(host: WindowsHost, request: Request, session: Session): unknown {
    switch (request.op) {
      case 'cmdlet':
        return answerCmdlet(
          host,
          this.#registry,
          {
            name: String(request.name),
            args: (request.args ?? {}) as Record<string, Wire>,
            input: (request.input ?? []) as Wire[],
          },
          session.keep,
        );
      case 'method': {
        const call = session.methods.get(String(request.id));
        if (!call) return { events: [], refused: `groundcrew sim: no method '${request.id}' in this session` };
        return answerMethod(call, request.argList ?? [], session.keep);
      }
      case 'absent':
        return {
          absent: (request.names ?? []).filter((n) => {
            const module = MODULE_OF[n.toLowerCase()];
            return module !== undefined && !moduleAvailable(host, module);
          }),
        };
      case 'native': {
        const name = String(request.name);
        const native = nativeOf(this.#registry, name);
        const program = name.replace(/^.*\\/, '').toLowerCase();
        return { kind: native ? (GUI_PROGRAMS.has(program) ? 'gui' : 'console') : 'none' };
      }
      // WindowsIdentity.GetCurrent() (principal.ps1): the lab's sessions are the Administrator's, elevated unless
      // the host says otherwise (state.elevated, which bcdedit and Install-WindowsFeature also follow).
      case 'identity':
        return { name: `${host.state.hostname.toUpperCase()}\\Administrator`, administrator: host.state.elevated };
      case 'gui':
        answerNative(host, this.#registry, String(request.name), request.argv ?? []);
        return {};
      default:
        return { events: [], refused: `groundcrew sim: the bridge has no operation '${request.op}'` };
    }
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    for (const listeners of this.#pipes.values()) listeners.close();
    this.#pipes.clear();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A native program's run, from the gc-sim-client process that stands for it (kind `native`, argv: the name or path
 * it was invoked by, then its arguments): the frame socket's side of the bridge.
 */
export function answerNativeRequest(
  hostOf: (name: string) => WindowsHost | undefined,
  request: { host: string; argv: string[] },
): { stdout: string; stderr: string; exitCode: number } {
  const host = hostOf(request.host);
  if (!host) return { stdout: '', stderr: `groundcrew sim: no simulated Windows host named '${request.host}'\n`, exitCode: 255 };
  const [invoked = '', ...argv] = request.argv;
  const result = answerNative(host, nativeRegistry(), invoked, argv);
  return { stdout: result.stdout, stderr: result.stderr ?? '', exitCode: result.exitCode };
}

let sharedRegistry: Registry<WindowsHost> | undefined;
function nativeRegistry(): Registry<WindowsHost> {
  sharedRegistry ??= windowsRegistry();
  return sharedRegistry;
}
