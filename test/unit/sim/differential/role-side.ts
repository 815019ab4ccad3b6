// What the role-script differential compares of each engine's answer to a case, and how each answer is reduced
// to it.

import type { CommandResult } from '../../../../src/sim/command-result.js';
import type { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { RealRoleOutcome } from './real-pwsh-roles.js';

export interface Side {
  stdout: string;
  exitCode: number;
  /** Each error's class: `FullyQualifiedErrorId | category`. */
  errors: string[];
  rebootRequested: boolean;
  /** The host's state after the script. */
  state: unknown;
}

const FQID = /^\s*\+ FullyQualifiedErrorId : (.*)$/;
const CATEGORY = /^\s*\+ CategoryInfo\s+: (\w+)/;

/**
 * Each error's class as `FullyQualifiedErrorId | category`. Not compared here (the language suite compares them):
 * the command name pwsh appends to the id of an error an advanced function raised (`...,Get-Service`: the bridge's
 * cmdlets are functions, and the simulator appends it to some terminating errors), and the rest of CategoryInfo,
 * which the bridge replays as `(:) [], Exception` and the simulator prints bare for a terminating error.
 */
function errorClasses(stderr: string): string[] {
  const classes: string[] = [];
  let category = '';
  for (const line of stderr.split(/\r?\n/)) {
    category = CATEGORY.exec(line)?.[1] ?? category;
    const id = FQID.exec(line)?.[1];
    if (id === undefined) continue;
    classes.push(`${id.replace(/,[A-Za-z]+-[A-Za-z]+$/, '')} | ${category}`);
    category = '';
  }
  return classes;
}

/**
 * pwsh 7's wording of a command not found, where 5.1 (the simulator, a node) says "the name of a cmdlet, function,
 * script file, or operable program" (docs/simulator.md); a fact script carries the message into its JSON.
 */
const as51 = (text: string) =>
  text.replace(
    /is not recognized as a name of a cmdlet, function, script file, or executable program\./g,
    'is not recognized as the name of a cmdlet, function, script file, or operable program.',
  );

export function simulatedSide(raw: CommandResult, host: WindowsHost): Side {
  return {
    stdout: raw.stdout.replace(/\r\n/g, '\n'),
    exitCode: raw.exitCode,
    errors: errorClasses(raw.stderr),
    rebootRequested: host.rebootRequested,
    state: host.state,
  };
}

export function realSide(raw: RealRoleOutcome, host: WindowsHost): Side {
  const stdout = as51(raw.stdout.replace(/\r\n/g, '\n'));
  return {
    // A script that wrote into pwsh's Linux working directory reached no host: a difference, never a pass.
    stdout: raw.strays.length > 0 ? `${stdout}[wrote into pwsh's working directory: ${raw.strays.join(', ')}]` : stdout,
    exitCode: raw.exitCode,
    errors: errorClasses(raw.stderr),
    rebootRequested: host.rebootRequested,
    state: host.state,
  };
}
