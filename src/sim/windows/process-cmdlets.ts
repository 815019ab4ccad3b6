// Processes in the simulator: Start-Process runs any program the host has and reports its exit code;
// cmd.exe (`/c "exit N"`, `/c echo`) and whoami (`/groups`, for the elevation check).

import { type CmdletSpec, type NativeSpec, obj } from '../shells/powershell/commands.js';
import { PsError } from '../shells/powershell/errors.js';
import { toText } from '../shells/powershell/values.js';
import { splitCommandLine } from './command-line.js';
import { runMsiexec } from './msi.js';
import type { WindowsHost } from './windows-host.js';

type Spec = CmdletSpec<WindowsHost>;
let nextPid = 4000;

/**
 * Start-Process (PowerShell-Docs, Microsoft.PowerShell.Management/Start-Process.md, set Default): the
 * program named by -FilePath, found among the host's programs; -Wait -PassThru gives its ExitCode.
 * `natives` is the host's table of programs (windows-shell.ts builds it).
 */
export function startProcessCmdlet(natives: ReadonlyMap<string, NativeSpec<WindowsHost>>): Spec {
  return {
    name: 'Start-Process',
    params: {
      FilePath: { type: 'string', position: 0, mandatory: true, aliases: ['PSPath', 'Path'] },
      ArgumentList: { type: 'string[]', position: 1, aliases: ['Args'] },
      Wait: { type: 'switch' },
      PassThru: { type: 'switch' },
      NoNewWindow: { type: 'switch' },
      WindowStyle: { type: 'string', values: ['Normal', 'Hidden', 'Minimized', 'Maximized'] },
      WorkingDirectory: { type: 'string' },
      RedirectStandardOutput: { type: 'string' },
      RedirectStandardError: { type: 'string' },
    },
    run(host, args, _input, ctx) {
      const file = toText(args.FilePath);
      const program = file.replace(/^.*\\/, '').toLowerCase();
      const native = natives.get(program) ?? natives.get(program.replace(/\.exe$/, ''));
      if (!native || (/\\/.test(file) && !host.fs.isFile(file) && !/^c:\\windows\\system32\\/i.test(file))) {
        ctx.error(
          new PsError(
            'This command cannot be run due to the error: The system cannot find the file specified.',
            'InvalidOperationException,Microsoft.PowerShell.Commands.StartProcessCommand',
            'InvalidOperation: (:) [Start-Process], InvalidOperationException',
            'Start-Process',
          ),
        );
        return [];
      }
      // The arguments are joined into one command line and split again, as Windows does for the new process.
      const argv = splitCommandLine(((args.ArgumentList as string[] | undefined) ?? []).join(' '));
      // msiexec is a GUI program: `& msiexec` returns at once with 0, a waited Start-Process has its code.
      const result = native.names.includes('msiexec')
        ? { exitCode: runMsiexec(host, argv) }
        : native.run(host, argv, { ...ctx, command: file });
      if (!args.PassThru) return [];
      // Without -Wait the process may still run when PowerShell returns: no exit code yet.
      return [
        obj(
          {
            Id: nextPid++,
            ProcessName: program.replace(/\.exe$/, ''),
            HasExited: Boolean(args.Wait),
            ExitCode: args.Wait ? result.exitCode : null,
          },
          'System.Diagnostics.Process',
        ),
      ];
    },
  };
}

/** cmd.exe /c: `exit N` and `echo TEXT`; anything else is outside the simulated subset, and says so. */
const cmd: NativeSpec<WindowsHost> = {
  names: ['cmd', 'cmd.exe'],
  run(_host, argv) {
    const at = argv.findIndex((a) => /^\/[ck]$/i.test(a));
    const line = argv
      .slice(at + 1)
      .join(' ')
      .trim();
    if (at < 0) return { stdout: '', stderr: 'groundcrew sim: an interactive cmd.exe is not simulated\r\n', exitCode: 1 };
    const exit = /^exit(?:\s+\/b)?\s+(-?\d+)$/i.exec(line);
    if (exit) return { stdout: '', exitCode: Number(exit[1]) };
    const echo = /^echo\s+(.*)$/i.exec(line);
    if (echo) return { stdout: `${echo[1]}\r\n`, exitCode: 0 };
    return { stdout: '', stderr: `groundcrew sim: cmd.exe /c ${line} is outside the simulated subset\r\n`, exitCode: 1 };
  },
};

/**
 * whoami /groups: the token's groups; an elevated administrator's token carries the High Mandatory Level
 * label (S-1-16-12288), an unelevated one the Medium label (S-1-16-8192).
 */
const whoami: NativeSpec<WindowsHost> = {
  names: ['whoami', 'whoami.exe'],
  run(host, argv) {
    if (argv[0]?.toLowerCase() !== '/groups') return { stdout: `${host.state.hostname.toLowerCase()}\\administrator\r\n`, exitCode: 0 };
    const label = host.state.elevated
      ? 'Mandatory Label\\High Mandatory Level                          Label            S-1-16-12288'
      : 'Mandatory Label\\Medium Mandatory Level                        Label            S-1-16-8192';
    const lines = [
      '',
      'GROUP INFORMATION',
      '-----------------',
      '',
      'Group Name                                                    Type             SID          Attributes',
      '============================================================= ================ ============ ===============================================================',
      'Everyone                                                      Well-known group S-1-1-0      Mandatory group, Enabled by default, Enabled group',
      `BUILTIN\\Administrators                                        Alias            S-1-5-32-544 ${host.state.elevated ? 'Mandatory group, Enabled by default, Enabled group, Group owner' : 'Group used for deny only'}`,
      label,
      '',
    ];
    return { stdout: lines.join('\r\n'), exitCode: 0 };
  },
};

export const PROCESS_NATIVES: NativeSpec<WindowsHost>[] = [cmd, whoami];
