// Chocolatey's own install path as c-a-d runs it ("install chocolatey": Set-ExecutionPolicy Bypass -Scope Process,
// then the script https://community.chocolatey.org/install.ps1 evaluated): community.chocolatey.org answers only
// TLS 1.2 clients (docs.chocolatey.org/en-us/choco/setup sets [Net.ServicePointManager]::SecurityProtocol first),
// and its install.ps1 leaves the release the catalog names, features at their defaults. The script's text is
// this simulator's own stand-in: Invoke-Expression runs it, and refuses by name anything else.

import type { CmdletSpec } from '../shells/powershell/commands.js';
import { PsTerminatingError } from '../shells/powershell/errors.js';
import { notModelled } from '../shells/powershell/syntax.js';
import { toText } from '../shells/powershell/values.js';
import { installChocolatey } from './chocolatey.js';
import type { WindowsHost } from './windows-host.js';

export const CHOCOLATEY_SITE = 'community.chocolatey.org';
const TLS12 = 3072;

const installScript = (version: string) => `# groundcrew sim: Chocolatey's install.ps1 (installs Chocolatey ${version})`;

const webError = (message: string, cmdlet: string) =>
  new PsTerminatingError(
    message,
    `System.Net.WebException,Microsoft.PowerShell.Commands.${cmdlet.replace('-', '')}Command`,
    'InvalidOperation',
    cmdlet,
  );

/** What community.chocolatey.org answers this host: install.ps1, 404 for any other path; no answer without TLS 1.2. */
export function chocolateySite(host: WindowsHost, url: URL, cmdlet: string): { status: number; body: string } {
  const version = host.state.catalog.chocolatey;
  if (!version) throw webError(`The remote name could not be resolved: '${CHOCOLATEY_SITE}'`, cmdlet);
  const tls = host.session.securityProtocol;
  if (url.protocol !== 'https:' || (tls !== 0 && (tls & TLS12) === 0))
    throw webError('The request was aborted: Could not create SSL/TLS secure channel.', cmdlet);
  if (url.pathname !== '/install.ps1') return { status: 404, body: '' };
  return { status: 200, body: installScript(version) };
}

/** Invoke-Expression of install.ps1 as the site served it: Chocolatey installed (an administrator's session only). */
const invokeExpression: CmdletSpec<WindowsHost> = {
  name: 'Invoke-Expression',
  params: { Command: { type: 'string', position: 0, mandatory: true } },
  run(host, args) {
    const text = toText(args.Command);
    const version = host.state.catalog.chocolatey;
    if (!version || text !== installScript(version))
      throw notModelled("Invoke-Expression of anything but Chocolatey's install.ps1 (chocolatey-install.ts)");
    if (!host.state.elevated)
      throw new PsTerminatingError(
        "Access to the path 'C:\\ProgramData\\chocolatey' is denied.",
        'UnauthorizedAccessException',
        'PermissionDenied',
      );
    installChocolatey(host, version);
    host.record(`chocolatey-install ${version}`);
    return ['Chocolatey (choco.exe) is now ready.'];
  },
};

/** Set-ExecutionPolicy for this process only (what c-a-d and Chocolatey's instructions set); other scopes refused. */
const setExecutionPolicy: CmdletSpec<WindowsHost> = {
  name: 'Set-ExecutionPolicy',
  params: {
    ExecutionPolicy: {
      type: 'string',
      position: 0,
      mandatory: true,
      values: ['AllSigned', 'Bypass', 'Default', 'RemoteSigned', 'Restricted', 'Undefined', 'Unrestricted'],
    },
    Scope: { type: 'string', position: 1, values: ['CurrentUser', 'LocalMachine', 'MachinePolicy', 'Process', 'UserPolicy'] },
    Force: { type: 'switch' },
  },
  run(_host, args) {
    if (toText(args.Scope ?? '').toLowerCase() !== 'process')
      throw notModelled('Set-ExecutionPolicy of a scope other than Process (chocolatey-install.ts)');
    return [];
  },
};

export const CHOCOLATEY_INSTALL_CMDLETS: CmdletSpec<WindowsHost>[] = [invokeExpression, setExecutionPolicy];
