// The simulated Windows host and its shell, for the tests of what the simulator answers: a fresh host (win1)
// with any options, and a script run on one as the roles' commands run (no SSH between).

import { beforeAll } from 'vitest';
import { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { WindowsShell } from '../../src/sim/windows/windows-shell.js';
import type { FreshWindowsOptions } from '../../src/sim/windows/windows-state.js';

/** How PowerShell says a command is not there (the same words on 5.1 and 7). */
export const NOT_RECOGNIZED = /is not recognized as the name of a cmdlet, function, script file, or operable program/;

/** Creates the shell before the file's tests (it loads the PowerShell grammar once); call at a test file's top level. */
export function simWindows() {
  let shell: WindowsShell | undefined;
  beforeAll(async () => {
    shell = await WindowsShell.create();
  });
  return {
    host: (options: Partial<FreshWindowsOptions> = {}) => WindowsHost.fresh({ hostname: 'win1', ...options }),
    run: (host: WindowsHost, script: string) => {
      if (!shell) throw new Error('simWindows: the shell is made in beforeAll; run scripts inside a test');
      return shell.runScript(host, script);
    },
  };
}
