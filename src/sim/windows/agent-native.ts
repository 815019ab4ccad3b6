// contrail-vrouter-agent.exe as a program a script runs (c-a-d's agent service runs it from entrypoint.ps1):
// with --config_file it stands for the agent process started, whose service the start rules judge
// (service-rules.ts); --version prints a version. Any other use is refused: the simulator does not model it.

import type { NativeSpec } from '../shells/powershell/commands.js';
import type { WindowsHost } from './windows-host.js';
import { SERVICE_DIR } from './windows-paths.js';

export const AGENT_EXE = `${SERVICE_DIR}\\agent\\contrail-vrouter-agent.exe`;

export const AGENT_NATIVE: NativeSpec<WindowsHost> = {
  names: ['contrail-vrouter-agent', 'contrail-vrouter-agent.exe'],
  run(host, argv, ctx) {
    const path = ctx.command?.includes('\\') ? ctx.command : AGENT_EXE;
    if (!host.fs.isFile(path))
      return {
        stdout: '',
        stderr: `${ctx.command ?? 'contrail-vrouter-agent'} : The term '${ctx.command ?? 'contrail-vrouter-agent'}' is not recognized as the name of a cmdlet, function, script file, or operable program.\r\n`,
        exitCode: 1,
      };
    if (argv.length === 1 && argv[0] === '--version') return { stdout: 'contrail-vrouter-agent\r\n', exitCode: 0 };
    if (argv.length === 1 && argv[0]?.startsWith('--config_file=')) return { stdout: '', exitCode: 0 };
    return {
      stdout: '',
      stderr: `groundcrew sim: contrail-vrouter-agent ${argv.join(' ')} is outside the simulated subset\r\n`,
      exitCode: 1,
    };
  },
};
