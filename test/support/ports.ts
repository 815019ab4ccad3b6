// Loopback ports for the servers a test starts: one free now, and waiting until a server listens on it.

import type { ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { waitUntil } from './wait-until.js';

/** A TCP port nobody listens on right now (taken and given back). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on loopback `port` now. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until something accepts connections on `port`, or `child` exits (its stderr in the error). */
export async function untilListening(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  await waitUntil(
    () => `${child.spawnfile} to listen on ${port}: ${stderr().trim()}`,
    async () => {
      if (child.exitCode !== null) return 'exited';
      return accepts(port);
    },
    { timeoutMs: 30_000 },
  );
  if (child.exitCode !== null) throw new Error(`${child.spawnfile} exited (${child.exitCode}): ${stderr().trim()}`);
}
