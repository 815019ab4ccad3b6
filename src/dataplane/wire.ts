// What goes over SSH for a script: Linux runs it through the login shell (bash -c); Windows gets
// powershell.exe -EncodedCommand, with errors made terminating so a failure is an exit code.

import { errors, markSent } from '../errors.js';
import type { Os } from '../os.js';

/** Prepended to every Windows script: stop at the first error; no progress bars in the output. */
export const POWERSHELL_PRELUDE = "$ErrorActionPreference = 'Stop'\n$ProgressPreference = 'SilentlyContinue'\n";

/** Windows command lines hold 32,767 characters; leave room for powershell.exe and its flags. */
const MAX_WINDOWS_COMMAND = 32_000;

export function powershellCommandLine(script: string): string {
  const encoded = Buffer.from(POWERSHELL_PRELUDE + script, 'utf16le').toString('base64');
  const line = `powershell.exe -NoProfile -NonInteractive -EncodedCommand ${encoded}`;
  if (line.length > MAX_WINDOWS_COMMAND) {
    const tooLong = errors.GC_COMMAND_TOO_LONG(
      `the script encodes to ${line.length} characters; a Windows command line holds ${MAX_WINDOWS_COMMAND}`,
    );
    throw markSent(tooLong, false);
  }
  return line;
}

export function wireCommand(os: Os, script: string): string {
  return os === 'windows' ? powershellCommandLine(script) : script;
}
