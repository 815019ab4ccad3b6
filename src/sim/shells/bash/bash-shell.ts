// What the simulated bash offers the commands it runs, and needs from the host it runs on.

import type { CommandResult } from '../../command-result.js';

/** A command the simulated host can run: a builtin or a utility of its file system. */
export type Utility = (argv: string[], stdin: string, shell: BashShell) => CommandResult;

/** What redirections and cd need from the host's file system; write returns an error text or undefined. */
export interface ShellFiles {
  read(path: string): string | undefined;
  write(path: string, content: string, append: boolean): string | undefined;
  isDir(path: string): boolean;
}

export interface BashShell {
  cwd: string;
  env: Map<string, string>;
  /** Absolute path of `path` against the working directory. */
  resolve(path: string): string;
}
