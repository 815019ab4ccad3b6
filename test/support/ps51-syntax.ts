// The real PowerShell parser over many scripts at once: one pwsh process (test/support/pwsh.ts) runs
// ps51-syntax.ps1, which reads the scripts as JSON on stdin and answers, for each, its parse errors, the
// PowerShell 6/7 constructs Windows PowerShell 5.1 lacks found in its AST, its command calls and its
// redirections to files, the variables and members it uses (ps51-members.ps1).

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pwshPath } from './pwsh.js';

export interface ParseError {
  line: number;
  column: number;
  message: string;
}

export interface SevenOnly {
  construct: string;
  text: string;
  line: number;
}

export interface NamedParameter {
  name: string;
  /** The element after it as written: its argument, unless the parameter is a switch. */
  argument: string | null;
  /** That element's value when it is a string constant (a bareword or a quoted string). */
  value: string | null;
}

export interface CommandCall {
  name: string;
  parameters: NamedParameter[];
  text: string;
  /** Each element after the name: "-Name", "-Name:" (argument joined), "@" (a splat) or "" (an argument). */
  shape?: string[];
  /** The parameters of this command in the running pwsh 7 that take the remaining arguments. */
  remaining7?: string[];
}

/** A member used with `.` or `::`, and what its receiver is known to be from the script alone. */
export interface MemberUse {
  static: boolean;
  member: string;
  /** The argument count of a method call; null for a property or field. */
  arguments: number | null;
  /** The receiver's .NET types, when the script says (a type literal, a string, a cast). */
  types: string[] | null;
  /** The command whose output the receiver is, when it is one. */
  command: string | null;
  text: string;
  line: number;
}

export interface ScriptSyntax {
  errors: ParseError[];
  sevenOnly: SevenOnly[];
  commands: CommandCall[];
  /** Redirections to a file (`> path`, `2>> path`), which write as Out-File does; `> $null` is not one. */
  redirections: string[];
  /** Commands whose error stream is redirected (`2>&1`, `2> $null`, `*>`), by name ('' when not a plain name). */
  stderrRedirections: { command: string; text: string }[];
  /**
   * Constant arguments to native programs that Windows PowerShell 5.1 passes mangled: an embedded `"` (not escaped),
   * an empty string (dropped), whitespace before a trailing backslash (the quote it adds is escaped).
   */
  legacyArguments: { command: string; argument: string }[];
  variables: { name: string; line: number }[];
  members: MemberUse[];
  functions: string[];
}

const ANALYZER = join(import.meta.dirname, 'ps51-syntax.ps1');

/** Each script's errors, 7-only constructs and command calls, in order. */
export function analyzeScripts(scripts: readonly string[]): ScriptSyntax[] {
  const out = execFileSync(pwshPath(), ['-NoLogo', '-NoProfile', '-NonInteractive', '-File', ANALYZER], {
    input: JSON.stringify(scripts),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    // A hang guard on the parser over every emitted script (about 100 s alone, several minutes on a loaded machine).
    timeout: 600_000,
  });
  const parsed = JSON.parse(out) as ScriptSyntax[];
  if (parsed.length !== scripts.length) throw new Error(`pwsh answered for ${parsed.length} of ${scripts.length} scripts`);
  return parsed;
}
