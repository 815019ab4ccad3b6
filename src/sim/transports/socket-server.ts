// The resident side of gc-sim-client: one unix socket, many simulated hosts, one small frame protocol.

import { unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';

export interface SimRequest {
  host: string;
  /** `windows` (sshd ForceCommand of a Windows host) or `shim` (docker, systemctl, reboot on a Linux host). */
  kind: string;
  argv: string[];
  /** SSH_ORIGINAL_COMMAND, when the client runs as a ForceCommand. */
  command?: string;
  cwd?: string;
  /** The client's parent: on a lab host, the sshd process serving this session; from SocketSimExecutor, the daemon. */
  parentPid?: number;
  /** Asks the client for its standard input (read to the end); only when a command needs it. */
  readStdin(): Promise<string>;
}

export interface SimResponse {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The host is down (rebooting): no session was made. Sent as a `D` frame before the exit status. */
  down?: boolean;
  /** Runs after the answer is sent: a reboot drops the session only once the caller has its result. */
  after?: () => void;
}

export type SimHandler = (request: SimRequest) => Promise<SimResponse>;

/** One frame: a type letter, the payload's length (4 bytes, big-endian), the payload. */
export function frame(type: string, payload: string | Buffer): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

class Connection {
  #buffer = Buffer.alloc(0);
  readonly #header: { host?: string; kind?: string; argv: string[]; command?: string; cwd?: string; parentPid?: number } = { argv: [] };
  #stdin: Buffer[] = [];
  #stdinWaiter: ((text: string) => void) | undefined;
  #started = false;

  constructor(
    private readonly socket: Socket,
    private readonly handler: SimHandler,
  ) {
    socket.on('data', (chunk) => this.#onData(chunk));
    socket.on('error', () => socket.destroy());
  }

  #onData(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    while (this.#buffer.length >= 5) {
      const length = this.#buffer.readUInt32BE(1);
      if (this.#buffer.length < 5 + length) return;
      const type = String.fromCharCode(this.#buffer[0] ?? 0);
      const payload = this.#buffer.subarray(5, 5 + length);
      this.#buffer = this.#buffer.subarray(5 + length);
      this.#onFrame(type, payload);
    }
  }

  #onFrame(type: string, payload: Buffer): void {
    const text = payload.toString('utf8');
    switch (type) {
      case 'h':
        this.#header.host = text;
        break;
      case 'k':
        this.#header.kind = text;
        break;
      case 'a':
        this.#header.argv.push(text);
        break;
      case 'c':
        this.#header.command = text;
        break;
      case 'd':
        this.#header.cwd = text;
        break;
      case 'p':
        this.#header.parentPid = Number(text);
        break;
      case 'g':
        if (!this.#started) {
          this.#started = true;
          void this.#run();
        }
        break;
      case 'i':
        this.#stdin.push(Buffer.from(payload));
        break;
      case 'I':
        this.#stdinWaiter?.(Buffer.concat(this.#stdin).toString('utf8'));
        break;
    }
  }

  async #run(): Promise<void> {
    const request: SimRequest = {
      host: this.#header.host ?? '',
      kind: this.#header.kind ?? '',
      argv: this.#header.argv,
      ...(this.#header.command !== undefined ? { command: this.#header.command } : {}),
      ...(this.#header.cwd !== undefined ? { cwd: this.#header.cwd } : {}),
      ...(this.#header.parentPid !== undefined ? { parentPid: this.#header.parentPid } : {}),
      readStdin: () =>
        new Promise<string>((resolve) => {
          this.#stdinWaiter = resolve;
          this.socket.write(frame('i', ''));
        }),
    };
    let response: SimResponse;
    try {
      response = await this.handler(request);
    } catch (err) {
      response = { stdout: '', stderr: `groundcrew sim: internal error: ${(err as Error).stack ?? err}\n`, exitCode: 255 };
    }
    if (this.socket.destroyed) return;
    const frames = [];
    if (response.stdout) frames.push(frame('o', response.stdout));
    if (response.stderr) frames.push(frame('e', response.stderr));
    if (response.down) frames.push(frame('D', ''));
    frames.push(frame('x', String(response.exitCode)));
    this.socket.end(Buffer.concat(frames), () => response.after?.());
  }
}

export class SimSocketServer {
  readonly #sockets = new Set<Socket>();

  private constructor(
    readonly path: string,
    private readonly server: Server,
  ) {}

  static listen(path: string, handler: SimHandler): Promise<SimSocketServer> {
    try {
      unlinkSync(path);
    } catch {
      // no stale socket
    }
    const server = createServer();
    const result = new SimSocketServer(path, server);
    server.on('connection', (socket) => {
      result.#sockets.add(socket);
      socket.on('close', () => result.#sockets.delete(socket));
      new Connection(socket, handler);
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve(result));
    });
  }

  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
