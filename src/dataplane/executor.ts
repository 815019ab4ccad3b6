// How groundcrew touches a node: one interface, several transports (ssh, powershell, local, sim).

import type { Os } from '../os.js';

export interface Command {
  /** A bash script (Linux) or a PowerShell script (Windows), built with bashQuote/psQuote only. */
  script: string;
  /** What the command is for, for logs and the run report; never holds a secret. */
  label?: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  /** Secrets go here, never into the script: they reach the node on standard input. */
  stdin?: string;
}

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface Executor {
  readonly os: Os;
  run(cmd: Command, opts: RunOptions): Promise<CommandResult>;
  close(): Promise<void>;
}

/** Structured events an executor reports (connects, reconnects, failures); a logger is plugged in by main.ts. */
export type ExecutorLog = (event: { level: 'debug' | 'info' | 'warn'; msg: string; [key: string]: unknown }) => void;
