// Windows features, boot, BCD, and Test-Path (files, registry keys, certificates, pipes) in the simulator.

import { type CmdletSpec, type NativeSpec, obj } from '../shells/powershell/commands.js';
import { NOT_MODELLED_ID, PsError, PsTerminatingError, PsUnmodelled } from '../shells/powershell/errors.js';
import { INSTALL_STATE, PsDate, psEnum, toText } from '../shells/powershell/values.js';
import { registryValues } from './registry-cmdlets.js';
import { HYPERV_TOOLS, NO_RESTART, SUB_FEATURES } from './windows-features.js';
import type { WindowsHost } from './windows-host.js';

type Spec = CmdletSpec<WindowsHost>;

function testPath(host: WindowsHost, path: string, pathType?: string): boolean {
  if (/^\\\\\.\\pipe\\/i.test(path)) {
    const name = path.replace(/^\\\\\.\\pipe\\/i, '');
    return host.pipes().some((p) => p.toLowerCase() === name.toLowerCase());
  }
  const cert = /^cert:\\localmachine\\(root|trustedpublisher)(?:\\([0-9a-f]+))?$/i.exec(path);
  if (cert) {
    const store = cert[1]?.toLowerCase() === 'root' ? host.state.certStores.Root : host.state.certStores.TrustedPublisher;
    return cert[2] ? cert[2].toUpperCase() in store : true;
  }
  if (/^(hklm:|registry::)/i.test(path)) return registryValues(host, path) !== undefined;
  if (pathType === 'Leaf') return host.fs.isFile(path);
  if (pathType === 'Container') return host.fs.isDir(path);
  return host.fs.isFile(path) || host.fs.isDir(path);
}

const knownFeature = (host: WindowsHost, name: string) =>
  Object.keys(host.state.features).find((f) => f.toLowerCase() === name.toLowerCase());

/** What a cmdlet or program meets but the simulator does not model: ctx.error turns it into a refusal. */
const notModelled = (what: string) => new PsError(`${what} is not modelled`, NOT_MODELLED_ID, 'NotImplemented');

const getWindowsFeature: Spec = {
  name: 'Get-WindowsFeature',
  params: { Name: { type: 'string[]', position: 0 } },
  run(host, args, _input, ctx) {
    const wanted = (args.Name as string[] | undefined)?.map((n) => n.toLowerCase());
    // A real server lists some 270 features; the simulator holds the few the roles touch.
    if (!wanted) ctx.error(notModelled('the full list of Windows features'));
    for (const name of wanted ?? []) if (!knownFeature(host, name)) ctx.error(notModelled(`the Windows feature '${name}'`));
    return Object.entries(host.state.features)
      .filter(([name]) => !wanted || wanted.includes(name.toLowerCase()))
      .map(([name, state]) =>
        obj(
          { Name: name, DisplayName: name, InstallState: psEnum(INSTALL_STATE, state), Installed: state === 'Installed' },
          'Microsoft.Windows.ServerManager.Commands.Feature',
        ),
      );
  },
};

/**
 * Install-WindowsFeature (windows-powershell-docs, ServerManager/Install-WindowsFeature.md). An unknown
 * name fails the whole command (nothing installed, no result), as Server Manager validates names first.
 */
const installWindowsFeature: Spec = {
  name: 'Install-WindowsFeature',
  params: {
    Name: { type: 'string[]', position: 0, mandatory: true },
    IncludeManagementTools: { type: 'switch' },
    IncludeAllSubFeature: { type: 'switch' },
    Restart: { type: 'switch' },
    Source: { type: 'string[]' },
    LogPath: { type: 'string' },
    ComputerName: { type: 'string', aliases: ['Cn'] },
  },
  supportsShouldProcess: true,
  run(host, args) {
    if (!host.state.elevated)
      throw new PsTerminatingError(
        'The requested operation requires elevation.',
        'UnauthorizedAccessException,Microsoft.Windows.ServerManager.Commands.AddWindowsFeatureCommand',
        'PermissionDenied: (:) [Install-WindowsFeature], UnauthorizedAccessException',
        'Install-WindowsFeature',
      );
    // A name the simulator does not hold may be a real feature it does not model: refused, not "not valid".
    const unknown = (args.Name as string[]).find((n) => !knownFeature(host, n));
    if (unknown) throw new PsUnmodelled(`groundcrew sim: the Windows feature '${unknown}' is not modelled`, 'Install-WindowsFeature');
    const names = (args.Name as string[]).map((n) => knownFeature(host, n) as string);
    for (const name of [...names]) {
      names.push(...(SUB_FEATURES[name] ?? []));
      if (name === 'Hyper-V' && args.IncludeManagementTools) names.push(...HYPERV_TOOLS);
    }
    let restart = false;
    const installed: string[] = [];
    for (const feature of new Set(names)) {
      if (host.state.features[feature] === 'Available') {
        const now = NO_RESTART.includes(feature);
        host.state.features[feature] = now ? 'Installed' : 'InstallPending';
        if (!now) host.state.pending.cbs = true;
        host.record(`install-feature ${feature}`);
        installed.push(feature);
      }
      if (host.state.features[feature] === 'InstallPending') restart = true;
    }
    if (args.Restart && restart) host.rebootRequested = true;
    return [
      obj({
        Success: true,
        RestartNeeded: restart ? 'Yes' : 'No',
        ExitCode: installed.length > 0 ? 'SuccessRestartRequired' : 'NoChangeNeeded',
        FeatureResult: installed,
      }),
    ];
  },
};

/**
 * Confirm-SecureBootUEFI (windows-powershell-docs, SecureBoot/Confirm-SecureBootUEFI.md): needs elevation; on
 * "a BIOS (non-UEFI) computer" it fails with "Cmdlet not supported on this platform" (the page's words; the
 * error Windows prints adds the NTSTATUS, 0xC0000002 STATUS_NOT_IMPLEMENTED).
 */
const confirmSecureBoot: Spec = {
  name: 'Confirm-SecureBootUEFI',
  params: {},
  run(host) {
    if (host.state.firmware === 'BIOS')
      throw new PsTerminatingError(
        'Cmdlet not supported on this platform: 0xC0000002',
        'System.PlatformNotSupportedException,Microsoft.SecureBoot.Commands.ConfirmSecureBootUefiCommand',
        'NotImplemented: (:) [Confirm-SecureBootUEFI], PlatformNotSupportedException',
        'Confirm-SecureBootUEFI',
      );
    if (!host.state.elevated)
      throw new PsTerminatingError(
        'Access was denied. To run this cmdlet, start Windows PowerShell with the "Run as administrator" option.',
        'System.UnauthorizedAccessException,Microsoft.SecureBoot.Commands.ConfirmSecureBootUefiCommand',
        'PermissionDenied: (:) [Confirm-SecureBootUEFI], UnauthorizedAccessException',
        'Confirm-SecureBootUEFI',
      );
    return [host.state.secureBoot];
  },
};

const getCimInstance: Spec = {
  name: 'Get-CimInstance',
  params: { ClassName: { type: 'string', position: 0, aliases: ['Class'] }, Filter: { type: 'string' } },
  run(host, args, _input, ctx) {
    if (toText(args.ClassName).toLowerCase() === 'win32_operatingsystem') {
      return [
        obj({
          Caption: `Microsoft Windows Server ${host.state.build === 14393 ? '2016' : '2019'} Datacenter`,
          Version: `10.0.${host.state.build}`,
          BuildNumber: String(host.state.build),
          CSName: host.state.hostname,
          LastBootUpTime: new PsDate(new Date(host.state.lastBootUpTime)),
        }),
      ];
    }
    ctx.error(
      new PsError(
        `Invalid class`,
        'HRESULT 0x80041010,Microsoft.Management.Infrastructure.CimCmdlets.GetCimInstanceCommand',
        'MetadataError',
      ),
    );
    return [];
  },
};

const restartComputer: Spec = {
  name: 'Restart-Computer',
  params: { Force: { type: 'switch' }, ComputerName: { type: 'string[]' } },
  supportsShouldProcess: true,
  run(host) {
    host.rebootRequested = true;
    host.record('restart-computer');
    return [];
  },
};

const testPathCmdlet: Spec = {
  name: 'Test-Path',
  params: {
    Path: { type: 'string[]', position: 0 },
    LiteralPath: { type: 'string[]' },
    PathType: { type: 'string', values: ['Any', 'Container', 'Leaf'] },
  },
  run(host, args) {
    const paths = (args.LiteralPath ?? args.Path ?? []) as string[];
    return paths.map((p) => testPath(host, p, args.PathType as string | undefined));
  },
};

const BCD_OK = 'The operation completed successfully.\r\n';
const BCD_DENIED = {
  stdout: '',
  stderr: 'The boot configuration data store could not be opened.\r\nAccess is denied.\r\n',
  exitCode: 1,
};

/**
 * bcdedit: `/enum [{id}]` and `/set [{id}] testsigning on|off`. Options take `/` or `-` and any case
 * (c-a-d runs `Bcdedit.exe -set TESTSIGNING ON`); without an identifier /set changes {current}. The store
 * needs an elevated token, and Secure Boot protects testsigning.
 */
const bcdedit: NativeSpec<WindowsHost> = {
  names: ['bcdedit', 'bcdedit.exe'],
  run(host, argv, ctx) {
    // Only the option's own switch takes `-` for `/`: `bcdedit -set TESTSIGNING ON` (c-a-d).
    const verb = argv[0]?.toLowerCase().replace(/^-/, '/');
    const rest = argv.slice(1);
    // `/set [{id}] datatype value`, `/enum [{id}]`: the identifier is there when the count says so.
    const hasId = verb === '/set' ? rest.length >= 3 : rest.length >= 1;
    const id = hasId ? rest[0]?.toLowerCase() : undefined;
    const [setting, value] = rest.slice(hasId ? 1 : 0).map((a) => a.toLowerCase());
    // An identifier is in braces; anything else (an unquoted {current} reaches bcdedit as -encodedCommand) is not one.
    if (id !== undefined && !/^\{.+\}$/.test(id))
      return {
        stdout: '',
        stderr: `The entry identifier '${rest[0]}' is not valid. Run "bcdedit /?" for command line assistance.\r\nThe parameter is incorrect.\r\n`,
        exitCode: 1,
      };
    // Other entries ({bootmgr}, {memdiag}, GUIDs...) exist on a real host: the simulator holds only {current}.
    if (id !== undefined && id !== '{current}' && id !== '{default}') ctx.error(notModelled(`the boot entry ${rest[0]}`));
    if (verb !== '/enum' && verb !== '/set') ctx.error(notModelled(`the option ${argv[0] ?? '(none)'}`));
    if (!host.state.elevated && (verb === '/enum' || verb === '/set')) return BCD_DENIED;
    if (verb === '/enum') {
      const lines = [
        '',
        'Windows Boot Loader',
        '-------------------',
        'identifier              {current}',
        'device                  partition=C:',
        'path                    \\Windows\\system32\\winload.exe',
        'description             Windows Server',
        'locale                  en-US',
        'osdevice                partition=C:',
        'systemroot              \\Windows',
        ...(host.state.bcdTestSigning ? ['testsigning             Yes'] : []),
        'nx                      OptOut',
        '',
      ];
      return { stdout: `${lines.join('\r\n')}\r\n`, exitCode: 0 };
    }
    if (verb === '/set' && setting === 'testsigning' && ['on', 'off', 'yes', 'no'].includes(value ?? '')) {
      if (host.state.secureBoot)
        return {
          stdout: '',
          stderr:
            'An error has occurred setting the element data.\r\nThe value is protected by Secure Boot policy and cannot be modified or deleted.\r\n',
          exitCode: 1,
        };
      const on = value === 'on' || value === 'yes';
      if (host.state.bcdTestSigning !== on) host.record(`bcdedit testsigning ${on ? 'on' : 'off'}`);
      host.state.bcdTestSigning = on;
      return { stdout: BCD_OK, exitCode: 0 };
    }
    ctx.error(notModelled(`/set ${setting ?? ''} ${value ?? ''} (of the elements, testsigning on|off is modelled)`));
    return { stdout: '', exitCode: 1 };
  },
};

const hostname: NativeSpec<WindowsHost> = { names: ['hostname'], run: (host) => ({ stdout: `${host.state.hostname}\r\n`, exitCode: 0 }) };

export const SYSTEM_CMDLETS: Spec[] = [
  getWindowsFeature,
  installWindowsFeature,
  confirmSecureBoot,
  getCimInstance,
  restartComputer,
  testPathCmdlet,
];
export const SYSTEM_NATIVES: NativeSpec<WindowsHost>[] = [bcdedit, hostname];
