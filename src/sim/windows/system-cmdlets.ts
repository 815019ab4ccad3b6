// Windows features, boot, BCD, and Test-Path (files, registry keys, certificates, pipes) in the simulator.

import { type CmdletSpec, type NativeSpec, obj } from '../shells/powershell/commands.js';
import { PsError } from '../shells/powershell/errors.js';
import { INSTALL_STATE, PsDate, psEnum, toText } from '../shells/powershell/values.js';
import { registryValues } from './registry-cmdlets.js';
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

export const SYSTEM_CMDLETS: Spec[] = [getWindowsFeature, installWindowsFeature, getCimInstance, restartComputer, testPathCmdlet];
export const SYSTEM_NATIVES: NativeSpec<WindowsHost>[] = [bcdedit, hostname];
