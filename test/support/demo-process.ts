// `groundcrew demo` as an operator starts it (the built binary, in a process of its own), its output kept to read.

import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');

export interface DemoProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
}

/** Starts `groundcrew demo ARGS` from the repo's root. */
export function startDemo(args: string[]): DemoProcess {
  const child = spawn(process.execPath, [BIN, 'demo', ...args], { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return { child, stdout: () => stdout, stderr: () => stderr };
}
