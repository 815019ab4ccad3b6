// choco.exe as the three generations a Windows image may carry: 0.10.11 (c-a-d's era, before enhanced exit
// codes), 1.x and 2.x. Each answers the command lines its own release accepts:
// - `list`: local with --local-only (-l, -lo, --localonly) up to 1.x; 2.0 made `list` local only and refuses
//   those options ("Invalid argument --local-only. This argument has been removed from the list command and
//   cannot be used.": docs.chocolatey.org "Upgrading to Chocolatey v2", chocolatey/choco#3177). Without them
//   0.10/1.x search the remote repository, which this simulator does not model (refused by name).
// - `feature list -r` (name|Enabled|description) and `feature disable`: chocolatey/choco
//   ChocolateyConfigSettingsService (feature_list, feature_disable: "Feature '...' not found", "Disabled ...",
//   "Nothing to change. Config already set."). useEnhancedExitCodes exists from 0.10.12 on; with it enabled
//   `list` exits 2 when it finds nothing (chocolatey/cChoco#123, chocolatey/choco#1758).
// - `install NAME -y [--version V]`: the packages c-a-d's install_software_Win32NT.yml installs.

import type { NativeResult, NativeSpec } from '../shells/powershell/commands.js';
import type { WindowsHost } from './windows-host.js';
import { CHOCO_EXE, NSSM_EXE, PIP_EXE, PYTHON_EXE } from './windows-paths.js';

/** What each Chocolatey package leaves on disk (enough to tell it is there), and its version. */
const PACKAGES: Record<string, { version: string; files: string[] }> = {
  python2: { version: '2.7.13', files: [PYTHON_EXE, PIP_EXE] },
  nssm: { version: '2.24.101', files: [NSSM_EXE] },
  vcredist140: { version: '14.16.27027', files: ['C:\\Windows\\System32\\vcruntime140.dll'] },
  vcredist2013: { version: '12.0.40664', files: ['C:\\Windows\\System32\\msvcr120.dll'] },
  vcpython27: {
    version: '9.0.30729.6161',
    files: ['C:\\Program Files (x86)\\Common Files\\Microsoft\\Visual C++ for Python\\9.0\\vcvarsall.bat'],
  },
};
const LIB = 'C:\\ProgramData\\chocolatey\\lib';
const CONFIG = 'C:\\ProgramData\\chocolatey\\config\\chocolatey.config';
const ENHANCED = 'useEnhancedExitCodes';
const LOCAL_ONLY = ['--local-only', '--localonly', '-l', '-lo', '--lo'];

const fail = (stderr: string, exitCode = 1): NativeResult => ({ stdout: '', stderr: `${stderr}\r\n`, exitCode });
const out = (lines: string[], exitCode = 0): NativeResult => ({ stdout: lines.map((l) => `${l}\r\n`).join(''), exitCode });

/** The release on the host (choco.exe's content is "chocolatey <version>"), or undefined without Chocolatey. */
export function chocolateyVersion(host: WindowsHost): string | undefined {
  return /^chocolatey (\S+)$/.exec(host.fs.read(CHOCO_EXE) ?? '')?.[1];
}

const major = (version: string) => Number(version.split('.')[0]);
const hasEnhancedExitCodes = (version: string) => {
  const [a = 0, b = 0, c = 0] = version.split('.').map(Number);
  return a > 0 || b > 10 || (b === 10 && c >= 12);
};

/** Puts Chocolatey on the host as install.ps1 leaves it: choco.exe and its config (features at their defaults). */
export function installChocolatey(host: WindowsHost, version: string, enhancedExitCodes = false): void {
  host.fs.put(CHOCO_EXE, `chocolatey ${version}`);
  host.fs.put(CONFIG, hasEnhancedExitCodes(version) ? `<feature name="${ENHANCED}" enabled="${enhancedExitCodes}" />` : '');
}

function enhancedEnabled(host: WindowsHost): boolean | undefined {
  const m = new RegExp(`<feature name="${ENHANCED}" enabled="(true|false)"`).exec(host.fs.read(CONFIG) ?? '');
  return m ? m[1] === 'true' : undefined;
}

function installed(host: WindowsHost): string[] {
  return Object.entries(PACKAGES)
    .filter(([name]) => host.fs.isFile(`${LIB}\\${name}\\${name}.nupkg`))
    .map(([name, p]) => `${name}|${host.fs.read(`${LIB}\\${name}\\${name}.nupkg`) ?? p.version}`);
}

function list(host: WindowsHost, version: string, args: string[]): NativeResult {
  const limited = args.includes('-r') || args.includes('--limit-output');
  const localOnly = args.find((a) => LOCAL_ONLY.includes(a));
  const banner = limited ? [] : [`Chocolatey v${version}`];
  if (major(version) >= 2 && localOnly)
    return out([...banner, `Invalid argument ${localOnly}. This argument has been removed from the list command and cannot be used.`], 1);
  if (major(version) < 2 && !localOnly)
    return fail(`groundcrew sim: choco ${version} list without --local-only searches the remote repository, outside the simulated subset`);
  const lines = installed(host);
  const exit = lines.length === 0 && enhancedEnabled(host) === true ? 2 : 0;
  return out([...banner, ...lines, ...(limited ? [] : [`${lines.length} packages installed.`])], exit);
}

function feature(host: WindowsHost, args: string[]): NativeResult {
  const [verb, ...rest] = args;
  const enabled = enhancedEnabled(host);
  if (verb === 'list') {
    if (!rest.includes('-r') && !rest.includes('--limit-output'))
      return fail('groundcrew sim: choco feature list without --limit-output is outside the simulated subset');
    return out(enabled === undefined ? [] : [`${ENHANCED}|${enabled ? 'Enabled' : 'Disabled'}|Use Enhanced Exit Codes`]);
  }
  const at = rest.findIndex((a) => /^(--name|-n)(=|$)/.test(a));
  const name = at < 0 ? undefined : rest[at]?.includes('=') ? rest[at]?.slice(rest[at].indexOf('=') + 1) : rest[at + 1];
  if (verb !== 'disable' || !name) return fail(`groundcrew sim: choco feature ${args.join(' ')} is outside the simulated subset`);
  if (name.toLowerCase() !== ENHANCED.toLowerCase() || enabled === undefined) return fail(`Feature '${name}' not found`);
  if (!host.state.elevated) return fail('Chocolatey detected you are not running from an elevated command shell.');
  if (!enabled) return out(['Nothing to change. Config already set.']);
  host.fs.put(CONFIG, `<feature name="${ENHANCED}" enabled="false" />`);
  host.record(`choco-feature-disable ${ENHANCED}`);
  return out([`Disabled ${ENHANCED}`]);
}

function install(host: WindowsHost, args: string[]): NativeResult {
  const name = args.find((a) => !a.startsWith('-') && !/^\d/.test(a));
  const at = args.findIndex((a) => a === '--version' || a.startsWith('--version='));
  const version = at < 0 ? undefined : (args[at]?.split('=')[1] ?? args[at + 1]);
  const pkg = name ? PACKAGES[name] : undefined;
  if (!name || !pkg || (version && version !== pkg.version))
    return fail(`${name ?? ''} not installed. The package was not found with the source(s) listed.`, 1);
  if (!args.includes('-y') && !args.includes('--yes') && !args.includes('--confirm'))
    return fail('Chocolatey asks to confirm and cannot in a non-interactive session; pass -y.', 1);
  if (!host.state.elevated) return fail('Chocolatey detected you are not running from an elevated command shell.', 1);
  for (const f of pkg.files) host.fs.put(f, `${name} ${pkg.version}`);
  host.fs.put(`${LIB}\\${name}\\${name}.nupkg`, pkg.version);
  host.record(`choco-install ${name} ${pkg.version}`);
  return out(['Chocolatey installed 1/1 packages.']);
}

export const choco: NativeSpec<WindowsHost> = {
  names: ['choco', 'choco.exe'],
  run(host, argv, ctx) {
    const version = chocolateyVersion(host);
    if (!version || (ctx.command?.includes('\\') && !host.fs.isFile(ctx.command)))
      return fail("choco : The term 'choco' is not recognized as the name of a cmdlet, function, script file, or operable program.");
    const [verb, ...rest] = argv.map((a) => a.toLowerCase());
    if (verb === '--version' || verb === '-v') return out([version]);
    if (verb === 'list') return list(host, version, rest);
    if (verb === 'feature') return feature(host, argv.slice(1));
    if (verb === 'install') return install(host, rest);
    return fail(`groundcrew sim: choco ${argv.join(' ')} is outside the simulated subset`);
  },
};
