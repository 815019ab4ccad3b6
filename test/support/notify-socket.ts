// A stand-in for systemd's notify socket: a unix datagram socket (Node's dgram cannot bind one; Python's can)
// that keeps every message it receives, newlines shown as `|`.

import { spawn } from 'node:child_process';
import { waitUntil } from './wait-until.js';

export interface NotifySocket {
  /** The messages received so far, in order. */
  messages: string[];
  close(): void;
}

/** Binds a notify socket at `path`; resolves once it is bound, so a sender's first message is not lost. */
export async function notifySocket(path: string): Promise<NotifySocket> {
  const receiver = [
    'import socket, sys',
    's = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)',
    's.bind(sys.argv[1])',
    'print("bound", flush=True)',
    'while True:',
    '    print(s.recv(4096).decode().replace("\\n", "|"), flush=True)',
  ].join('\n');
  const py = spawn('python3', ['-c', receiver, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let partial = '';
  py.stdout.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  try {
    await waitUntil(`the notify socket bound at ${path}`, () => lines[0] === 'bound' || py.exitCode !== null);
  } catch (err) {
    py.kill();
    throw err;
  }
  if (lines[0] !== 'bound') throw new Error(`the notify socket at ${path} did not bind (python3 exited ${py.exitCode})`);
  return {
    get messages() {
      return lines.slice(1);
    },
    close: () => py.kill(),
  };
}
