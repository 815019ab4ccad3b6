// Windows features, boot, registry, BCD and path tests in the simulator.

import { type CmdletSpec, type NativeSpec, obj } from '../shells/powershell/commands.js';
import { PsError } from '../shells/powershell/errors.js';
import { INSTALL_STATE, PsDate, PsObject, psEnum, toText } from '../shells/powershell/values.js';
import type { WindowsHost } from './windows-host.js';

type Spec = CmdletSpec<WindowsHost>;

const REG_CONTROL = 'hklm:\\system\\currentcontrolset\\control';
const REG_SESSION = 'hklm:\\system\\currentcontrolset\\control\\session manager';
const REG_CBS_PENDING = 'hklm:\\software\\microsoft\\windows\\currentversion\\component based servicing\\rebootpending';
const REG_WU_PENDING = 'hklm:\\software\\microsoft\\windows\\currentversion\\windowsupdate\\auto update\\rebootrequired';

function regKey(path: string): string {
  return path
    .replace(/^Registry::HKEY_LOCAL_MACHINE/i, 'HKLM:')
    .replace(/\//g, '\\')
    .replace(/\\+$/, '')
    .toLowerCase();
}

/** Registry values the roles read, derived from the host's state. Undefined: no such key. */
function registryValues(host: WindowsHost, path: string): Record<string, unknown> | undefined {
  switch (regKey(path)) {
    case REG_CONTROL:
      return { SystemStartOptions: host.systemStartOptions(), CurrentUser: 'USERNAME' };
    case REG_SESSION:
      return host.state.pending.fileRename ? { PendingFileRenameOperations: ['\\??\\C:\\Windows\\Temp\\pending.sys', ''] } : {};
    case REG_CBS_PENDING:
      return host.state.pending.cbs ? {} : undefined;
    case REG_WU_PENDING:
      return undefined;
    default:
      return host.state.registry[regKey(path)];
  }
}

export function testPath(host: WindowsHost, path: string, pathType?: string): boolean {
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

const getWindowsFeature: Spec = {
  name: 'Get-WindowsFeature',
  params: { Name: { type: 'string[]', position: 0 } },
  run(host, args) {
    const wanted = (args.Name as string[] | undefined)?.map((n) => n.toLowerCase());
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

const installWindowsFeature: Spec = {
  name: 'Install-WindowsFeature',
  params: {
    Name: { type: 'string[]', position: 0, mandatory: true },
    IncludeManagementTools: { type: 'switch' },
    IncludeAllSubFeature: { type: 'switch' },
    Restart: { type: 'switch' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    let restart = false;
    let changed = false;
    for (const name of args.Name as string[]) {
      const feature = Object.keys(host.state.features).find((f) => f.toLowerCase() === name.toLowerCase());
      if (!feature) {
        ctx.error(
          new PsError(
            `ArgumentNotValid: The role, role service, or feature name is not valid: '${name}'. The name was not found.`,
            'NameDoesNotExist,Microsoft.Windows.ServerManager.Commands.AddWindowsFeatureCommand',
            'InvalidArgument',
          ),
        );
        continue;
      }
      if (host.state.features[feature] === 'Available') {
        host.state.features[feature] = 'InstallPending';
        host.state.pending.cbs = true;
        host.record(`install-feature ${feature}`);
        changed = true;
      }
      if (host.state.features[feature] === 'InstallPending') restart = true;
    }
    if (args.Restart && restart) host.rebootRequested = true;
    return [
      obj({
        Success: true,
        RestartNeeded: restart ? 'Yes' : 'No',
        ExitCode: changed ? 'SuccessRestartRequired' : 'NoChangeNeeded',
        FeatureResult: [],
      }),
    ];
  },
};

const getCimInstance: Spec = {
  name: 'Get-CimInstance',
  params: { ClassName: { type: 'string', position: 0, aliases: ['Class'] }, Filter: { type: 'string' } },
  run(host, args, _input, ctx) {
    if (toText(args.ClassName).toLowerCase() === 'win32_operatingsystem') {
      return [
        obj({
          Caption: 'Microsoft Windows Server 2019 Datacenter',
          Version: '10.0.17763',
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

export function registryPathNotFound(path: string, command: string): PsError {
  return new PsError(
    `Cannot find path '${path}' because it does not exist.`,
    `PathNotFound,Microsoft.PowerShell.Commands.${command}Command`,
    'ObjectNotFound',
  );
}

const getItemProperty: Spec = {
  name: 'Get-ItemProperty',
  params: { Path: { type: 'string', position: 0, aliases: ['LiteralPath'] }, Name: { type: 'string[]', position: 1 } },
  run(host, args, _input, ctx) {
    const path = toText(args.Path);
    const values = registryValues(host, path);
    if (!values) {
      ctx.error(registryPathNotFound(path, 'GetItemProperty'));
      return [];
    }
    const names = args.Name as string[] | undefined;
    if (!names) return [PsObject.from(values)];
    const found = names.filter((n) => Object.keys(values).some((k) => k.toLowerCase() === n.toLowerCase()));
    if (found.length < names.length) {
      ctx.error(
        new PsError(
          `Property ${names.find((n) => !found.includes(n))} does not exist at path ${path}.`,
          'System.Management.Automation.PSArgumentException,Microsoft.PowerShell.Commands.GetItemPropertyCommand',
          'InvalidArgument',
        ),
      );
      if (found.length === 0) return [];
    }
    return [
      new PsObject(
        undefined,
        found.map((n) => [n, Object.entries(values).find(([k]) => k.toLowerCase() === n.toLowerCase())?.[1]]),
      ),
    ];
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

/** bcdedit: /enum of {current} and /set {current} testsigning on|off, as the roles use it. */
const bcdedit: NativeSpec<WindowsHost> = {
  names: ['bcdedit'],
  run(host, argv) {
    const [verb, id, setting, value] = argv.map((a) => a.toLowerCase());
    const badId = id !== undefined && id !== '{current}' && id !== '{default}';
    if (badId)
      return {
        stdout: '',
        stderr: `The entry identifier '${argv[1]}' is not valid. Run "bcdedit /?" for command line assistance.\r\nThe parameter is incorrect.\r\n`,
        exitCode: 1,
      };
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
    if (verb === '/set' && setting === 'testsigning' && (value === 'on' || value === 'off' || value === 'yes' || value === 'no')) {
      const on = value === 'on' || value === 'yes';
      if (host.state.bcdTestSigning !== on) host.record(`bcdedit testsigning ${on ? 'on' : 'off'}`);
      host.state.bcdTestSigning = on;
      return { stdout: BCD_OK, exitCode: 0 };
    }
    return { stdout: '', stderr: 'The parameter is incorrect.\r\nRun "bcdedit /?" for command line assistance.\r\n', exitCode: 1 };
  },
};

const hostname: NativeSpec<WindowsHost> = { names: ['hostname'], run: (host) => ({ stdout: `${host.state.hostname}\r\n`, exitCode: 0 }) };

export const SYSTEM_CMDLETS: Spec[] = [
  getWindowsFeature,
  installWindowsFeature,
  getCimInstance,
  restartComputer,
  getItemProperty,
  testPathCmdlet,
];
export const SYSTEM_NATIVES: NativeSpec<WindowsHost>[] = [bcdedit, hostname];
