// What a real pwsh standing for a Windows host's powershell.exe starts with: groundcrew's Windows module for the
// host's build (loaded by the profile, so a script's own -NoProfile cannot skip it, as a Windows install's modules
// cannot be skipped), Windows PowerShell 5.1's look (plain text, NormalView errors), an empty PATH (every program
// is the host's, found by the module), and the environment variables a Windows session has.

import { execFileSync } from 'node:child_process';
import { readdirSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Build } from '../../src/sim/windows/real-pwsh/cmdlet-metadata.js';
import { windowsModuleSource } from '../../src/sim/windows/real-pwsh/module-source.js';
import { windowsRegistry } from '../../src/sim/windows/windows-shell.js';

/** Writes the module and the profile that loads it under `dir`; returns the XDG_CONFIG_HOME that holds the profile. */
export async function writeRealPwshConfig(dir: string, build: Build): Promise<string> {
  const moduleFile = join(dir, 'modules', 'GcWindows', 'GcWindows.psm1');
  await mkdir(dirname(moduleFile), { recursive: true });
  await writeFile(moduleFile, windowsModuleSource(build, windowsRegistry()));
  const configHome = join(dir, 'config');
  await mkdir(join(configHome, 'powershell'), { recursive: true });
  await writeFile(
    join(configHome, 'powershell', 'profile.ps1'),
    [
      `Import-Module -Name '${moduleFile.replace(/'/g, "''")}' -DisableNameChecking`,
      "$PSStyle.OutputRendering = 'PlainText'",
      "$ErrorView = 'NormalView'",
      '',
    ].join('\n'),
  );
  return configHome;
}

export interface RealPwshEnvOptions {
  configHome: string;
  /** The pwsh process's working directory and HOME: empty, and checked to stay so. */
  work: string;
  /** Writable scratch: pwsh's caches, and the module's native program stubs. */
  scratch: string;
  emptyPath: string;
  /**
   * pwsh's TMPDIR: where the host's served pipes listen (src/sim/transports/pipe-listeners.ts), so the engine's
   * own NamedPipeClientStream reaches them. One per host.
   */
  pipeDir: string;
  bridgeSocket: string;
  nativeSocket: string;
  simClient: string;
  hostName: string;
  computerName: string;
}

let dotnetRoot: string | undefined;

/**
 * How to start pwsh in one process: the .NET tool's `pwsh` is a shim that starts `dotnet pwsh.dll` from PATH (a
 * second process, and PATH is empty here), so the runtime is started on the tool's pwsh.dll directly.
 */
export function realPwshCommand(pwsh: string): { file: string; args: string[] } {
  const store = join(dirname(pwsh), '.store', 'powershell');
  const [version] = readdirSync(store).filter((v) => /^\d/.test(v));
  if (!version) throw new Error(`real pwsh: no PowerShell version under ${store}`);
  const tools = join(store, version, 'powershell', version, 'tools');
  const [framework] = readdirSync(tools);
  if (!framework) throw new Error(`real pwsh: no framework under ${tools}`);
  return { file: join(findDotnetRoot(), 'dotnet'), args: [join(tools, framework, 'any', 'unix', 'pwsh.dll')] };
}

/** Where the .NET runtime is: pwsh (a .NET tool's apphost) looks for it on PATH, which is empty here. */
function findDotnetRoot(): string {
  if (dotnetRoot) return dotnetRoot;
  const fromEnv = process.env.DOTNET_ROOT;
  dotnetRoot = fromEnv ?? dirname(realpathSync(execFileSync('sh', ['-c', 'command -v dotnet'], { encoding: 'utf8' }).trim()));
  return dotnetRoot;
}

export function realPwshEnv(o: RealPwshEnvOptions): Record<string, string> {
  return {
    PATH: o.emptyPath,
    HOME: o.work,
    XDG_CONFIG_HOME: o.configHome,
    XDG_CACHE_HOME: join(o.scratch, 'cache'),
    XDG_DATA_HOME: join(o.scratch, 'data'),
    TMPDIR: o.pipeDir,
    DOTNET_ROOT: findDotnetRoot(),
    // No tiered profile-guided optimisation: a session lives a second or two, too short to profit from the
    // instrumented tier, which only costs. Measured here: 6 starts of pwsh with a cmdlet call took 5.86/5.78/5.92/6.02 s
    // of user CPU with it, 5.35/5.29/5.44/5.54 s without (about 8% less); TieredCompilation=0 cost 2.5 times more.
    DOTNET_TieredPGO: '0',
    DOTNET_CLI_TELEMETRY_OPTOUT: '1',
    POWERSHELL_TELEMETRY_OPTOUT: '1',
    POWERSHELL_UPDATECHECK: 'Off',
    TERM: 'dumb',
    GC_SIM_SOCKET: o.bridgeSocket,
    GC_SIM_NATIVES: o.nativeSocket,
    GC_SIM_CLIENT: o.simClient,
    GC_SIM_HOST: o.hostName,
    GC_SIM_SHIMS: o.scratch,
    // A Windows session's own variables (the TypeScript interpreter gives scripts the same ones).
    COMPUTERNAME: o.computerName,
    ProgramData: 'C:\\ProgramData',
    ProgramFiles: 'C:\\Program Files',
    SystemRoot: 'C:\\Windows',
    windir: 'C:\\Windows',
    TEMP: 'C:\\Windows\\Temp',
  };
}
