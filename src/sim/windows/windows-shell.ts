// What a Windows host's OpenSSH hands a command to: cmd.exe, which runs powershell.exe -EncodedCommand.

import type { CommandResult } from '../command-result.js';
import type { CmdletSpec, NativeSpec, Registry } from '../shells/powershell/commands.js';
import { Interpreter } from '../shells/powershell/interpreter.js';
import { loadPowerShellParser } from '../shells/powershell/parser.js';
import { isBarewordListGap, syntaxErrorResult } from '../shells/powershell/syntax-error.js';
import { UTILITY_CMDLETS } from '../shells/powershell/utility-cmdlets.js';
import { ParseCache } from '../shells/tree-sitter.js';
import { AGENT_NATIVE } from './agent-native.js';
import { catalogued } from './catalogued.js';
import { CHOCOLATEY_INSTALL_CMDLETS } from './chocolatey-install.js';
import { splitCommandLine } from './command-line.js';
import { CONTAINER_CMDLETS } from './container-cmdlets.js';
import { DOCKER_NATIVE } from './docker.js';
import { FILE_CMDLETS } from './file-cmdlets.js';
import { FIREWALL_CMDLETS } from './firewall-cmdlets.js';
import { INSTALLER_NATIVES } from './installer-natives.js';
import { KUBELET_NATIVE } from './kubelet-sim.js';
import { gated, getCommandCmdlet, MODULE_CMDLETS } from './modules.js';
import { NETWORK_CMDLETS, NETWORK_NATIVES } from './network-cmdlets.js';
import { PACKAGE_CMDLETS, PACKAGE_NATIVES } from './package-cmdlets.js';
import { PROVIDER_CMDLETS } from './package-providers.js';
import { newObjectCmdlet } from './pipe-client.js';
import { PROCESS_NATIVES, startProcessCmdlet } from './process-cmdlets.js';
import { REGISTRY_CMDLETS } from './registry-cmdlets.js';
import { ROUTING_CMDLETS, ROUTING_NATIVES } from './routing-cmdlets.js';
import { SERVICE_CMDLETS, SERVICE_NATIVES } from './service-cmdlets.js';
import { SYSTEM_CMDLETS, SYSTEM_NATIVES } from './system-cmdlets.js';
import { UTILS_NATIVES } from './utils-programs.js';
import { VMSWITCH_CMDLETS } from './vmswitch-cmdlets.js';
import { WEB_CMDLETS } from './web-cmdlets.js';
import { newSession, type WindowsHost } from './windows-host.js';

type Parser = Awaited<ReturnType<typeof loadPowerShellParser>>;

/** Every Windows cmdlet and program the simulated host answers (the real-pwsh bridge serves the same ones). */
export function windowsRegistry(): Registry<WindowsHost> {
  const cmdlets = new Map<string, CmdletSpec<WindowsHost>>();
  const natives = new Map<string, NativeSpec<WindowsHost>>();
  for (const c of [
    ...(UTILITY_CMDLETS as CmdletSpec<WindowsHost>[]),
    ...SYSTEM_CMDLETS,
    ...SERVICE_CMDLETS,
    ...FILE_CMDLETS,
    ...PACKAGE_CMDLETS,
    ...NETWORK_CMDLETS,
    ...ROUTING_CMDLETS,
    ...REGISTRY_CMDLETS,
    ...WEB_CMDLETS,
    ...CHOCOLATEY_INSTALL_CMDLETS,
    ...MODULE_CMDLETS,
    ...PROVIDER_CMDLETS,
    ...CONTAINER_CMDLETS,
    ...FIREWALL_CMDLETS,
    ...VMSWITCH_CMDLETS,
    startProcessCmdlet(natives),
    newObjectCmdlet,
    getCommandCmdlet((name) => (cmdlets.has(name.toLowerCase()) ? 'Cmdlet' : natives.has(name.toLowerCase()) ? 'Application' : undefined)),
  ]) {
    cmdlets.set(c.name.toLowerCase(), catalogued(gated(c)));
  }
  for (const n of [
    ...SYSTEM_NATIVES,
    ...SERVICE_NATIVES,
    ...PACKAGE_NATIVES,
    ...NETWORK_NATIVES,
    ...ROUTING_NATIVES,
    ...PROCESS_NATIVES,
    ...INSTALLER_NATIVES,
    DOCKER_NATIVE,
    KUBELET_NATIVE,
    AGENT_NATIVE,
    ...UTILS_NATIVES,
  ])
    for (const name of n.names) natives.set(name, n);
  return { cmdlets, natives };
}

const ENV = {
  ProgramData: 'C:\\ProgramData',
  ProgramFiles: 'C:\\Program Files',
  SystemRoot: 'C:\\Windows',
  windir: 'C:\\Windows',
  TEMP: 'C:\\Windows\\Temp',
};

export class WindowsShell {
  readonly #registry = windowsRegistry();

  readonly #parsed: ParseCache;

  private constructor(parser: Parser) {
    this.#parsed = new ParseCache(parser, 512, isBarewordListGap);
  }

  static async create(): Promise<WindowsShell> {
    return new WindowsShell(await loadPowerShellParser());
  }

  /** Runs a PowerShell script as powershell.exe would; a syntax error is a ParserError, exit 1. */
  runScript(host: WindowsHost, script: string, stdin = ''): CommandResult {
    // A service the script starts may run a program of its own (an NSSM service's powershell.exe -File).
    host.runProcess ??= (commandLine) => this.runCommandLine(host, commandLine);
    // One script is one powershell.exe process: what it imported is gone when it ends.
    host.session = newSession();
    const { tree, problem } = this.#parsed.parse(script);
    if (problem) return syntaxErrorResult(script, problem);
    return new Interpreter(host, this.#registry, { stdin, env: { ...ENV, COMPUTERNAME: host.state.hostname } }).run(tree, script);
  }

  /** The command an SSH client asked for, as cmd.exe (Windows OpenSSH's default shell) would run it. */
  runCommandLine(host: WindowsHost, commandLine: string, stdin = ''): CommandResult {
    const argv = splitCommandLine(commandLine);
    const program = (argv[0] ?? '').toLowerCase().replace(/^.*\\/, '');
    if (program !== 'powershell.exe' && program !== 'powershell') {
      // cmd.exe sets ERRORLEVEL 9009 here; a Unix exit status holds 8 bits, so the lab reports 1.
      return {
        stdout: '',
        stderr: `'${argv[0] ?? ''}' is not recognized as an internal or external command,\r\noperable program or batch file.\r\n`,
        exitCode: 1,
      };
    }
    let script: string | undefined;
    for (let i = 1; i < argv.length; i++) {
      const flag = (argv[i] ?? '').toLowerCase();
      if (['-noprofile', '-noninteractive', '-nologo', '-noninteractive'].includes(flag)) continue;
      if (flag === '-executionpolicy') {
        i++;
        continue;
      }
      if (flag === '-encodedcommand' || flag === '-enc' || flag === '-e') {
        const encoded = argv[++i] ?? '';
        script = Buffer.from(encoded, 'base64').toString('utf16le');
        continue;
      }
      if (flag === '-file' || flag === '-f') {
        const path = argv[++i] ?? '';
        const text = host.fs.read(path);
        if (text === undefined)
          return { stdout: '', stderr: `The argument '${path}' to the -File parameter does not exist.\r\n`, exitCode: 1 };
        // The script runs in a process of its own: the caller's session (its imported modules) is not its.
        const caller = host.session;
        try {
          return this.runScript(host, text, stdin);
        } finally {
          host.session = caller;
        }
      }
      if (flag === '-command' || flag === '-c') {
        const rest = argv.slice(i + 1).join(' ');
        script = rest === '-' ? stdin : rest;
        break;
      }
      return {
        stdout: '',
        stderr: `-${flag.replace(/^-/, '')} : The argument '${argv[i]}' is not recognized as the name of a script file. Check the spelling of the name, or if a path was included, verify that the path is correct and try again.\r\n`,
        exitCode: 1,
      };
    }
    if (script === undefined)
      return {
        stdout: '',
        stderr: 'groundcrew sim: an interactive PowerShell session is not simulated; pass -EncodedCommand\r\n',
        exitCode: 1,
      };
    return this.runScript(host, script, stdin);
  }
}

/** What groundcrew sends over SSH for a PowerShell script (DESIGN section 6). */
export function encodePowerShell(script: string): string {
  return `powershell.exe -NoProfile -NonInteractive -EncodedCommand ${Buffer.from(script, 'utf16le').toString('base64')}`;
}
