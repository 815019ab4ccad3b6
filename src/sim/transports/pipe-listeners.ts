// A simulated Windows host's named pipes as real listeners, so real pwsh's own NamedPipeClientStream reaches them:
// on Linux, .NET's NamedPipeClientStream('.', name) connects to the unix socket $TMPDIR/CoreFxPipe_<name> (checked in
// pwsh 7.6.9: every New-Object and ::new form of it), so each host's pwsh has its own TMPDIR and a socket there per
// pipe the host serves now. A pipe the host does not serve has no socket: Connect(timeout) times out as on Windows.

import { mkdirSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

export class PipeListeners {
  readonly #listening = new Map<string, { server: Server; sockets: Set<Socket> }>();

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** The socket a client of pipe `name` connects to. */
  pathOf(name: string): string {
    return join(this.dir, `CoreFxPipe_${name}`);
  }

  /** Listens for exactly `names` (a server accepts and holds each connection; nothing is read from it). */
  sync(names: string[]): void {
    const wanted = new Set(names);
    for (const [name, listener] of this.#listening) {
      if (wanted.has(name)) continue;
      this.#stop(name, listener);
    }
    for (const name of wanted) {
      if (this.#listening.has(name)) continue;
      const path = this.pathOf(name);
      removeStale(path);
      const sockets = new Set<Socket>();
      const server = createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => socket.destroy());
        socket.on('close', () => sockets.delete(socket));
        socket.resume();
      });
      server.on('error', () => this.#stop(name, { server, sockets }));
      server.listen(path);
      this.#listening.set(name, { server, sockets });
    }
  }

  close(): void {
    for (const [name, listener] of this.#listening) this.#stop(name, listener);
  }

  #stop(name: string, listener: { server: Server; sockets: Set<Socket> }): void {
    this.#listening.delete(name);
    for (const socket of listener.sockets) socket.destroy();
    listener.server.close();
  }
}

function removeStale(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // none
  }
}
