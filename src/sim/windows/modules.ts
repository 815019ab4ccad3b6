// A cmdlet exists only when its module does. Which module each gated cmdlet comes from, when that module is
// on the host, and Import-Module for the one a script must load itself (hns.psm1 on Server 2016).

import { type CmdletSpec, obj } from '../shells/powershell/commands.js';
import { notRecognized, PsError, PsUnmodelled } from '../shells/powershell/errors.js';
import { toText } from '../shells/powershell/values.js';
import type { WindowsHost } from './windows-host.js';

type Spec = CmdletSpec<WindowsHost>;

/**
 * The modules the simulator gates:
 * - Hyper-V: the Hyper-V PowerShell module, installed by the Hyper-V-PowerShell feature, which
 *   `Install-WindowsFeature Hyper-V -IncludeManagementTools` adds (windows-powershell-docs, hyper-v/).
 * - Containers: Get-ContainerNetwork and friends, with the Containers feature, on Server 2016 only. On 2019
 *   the scripts that ran on both builds had to turn to the HNS cmdlets: c-a-d's install_software_Win32NT.yml
 *   runs `Get-ContainerNetwork | Remove-ContainerNetwork` "when windows_server_version == '2016'" and
 *   `Get-HnsNetwork | Remove-HnsNetwork` on 2019; contrail-windows-tools 197ae94 ("Make cleanup script work
 *   on Windows Server 2019") and contrail-windows-ci 35ad8cf0 guard with `Get-Command Get-ContainerNetwork`.
 * - HostNetworkingService: Get-HnsNetwork. Server 2019 ships it with the Containers feature; on Server 2016
 *   it comes only from Microsoft's hns.psm1 (microsoft/SDN), which a script must Import-Module itself.
 */
export type GatedModule = 'Hyper-V' | 'Containers' | 'HostNetworkingService';

export const MODULE_OF: Readonly<Record<string, GatedModule>> = {
  'get-vmswitch': 'Hyper-V',
  'get-vmswitchextension': 'Hyper-V',
  'enable-vmswitchextension': 'Hyper-V',
  'new-vmswitch': 'Hyper-V',
  'get-containernetwork': 'Containers',
  'remove-containernetwork': 'Containers',
  'get-hnsnetwork': 'HostNetworkingService',
  'remove-hnsnetwork': 'HostNetworkingService',
};

export function moduleAvailable(host: WindowsHost, module: GatedModule): boolean {
  switch (module) {
    case 'Hyper-V':
      return host.state.features['Hyper-V-PowerShell'] === 'Installed';
    case 'Containers':
      return host.state.build === 14393 && host.state.features.Containers === 'Installed';
    case 'HostNetworkingService':
      if (host.session.modules.has('hns')) return true;
      return host.state.build !== 14393 && host.state.features.Containers === 'Installed';
  }
}

/** The cmdlet, answering "not recognized" (CommandNotFoundException) while its module is missing. */
export function gated(spec: Spec): Spec {
  const module = MODULE_OF[spec.name.toLowerCase()];
  if (!module) return spec;
  return {
    ...spec,
    run(host, args, input, ctx) {
      if (!moduleAvailable(host, module)) throw notRecognized(spec.name);
      return spec.run(host, args, input, ctx);
    },
  };
}

const importModule: Spec = {
  name: 'Import-Module',
  params: {
    Name: { type: 'string[]', position: 0, mandatory: true },
    Force: { type: 'switch' },
    DisableNameChecking: { type: 'switch' },
    Global: { type: 'switch' },
    PassThru: { type: 'switch' },
  },
  run(host, args, _input, ctx) {
    const out = [];
    for (const name of args.Name as string[]) {
      const isHns = /(^|\\)hns\.psm1$/i.test(name);
      const known = (['Hyper-V', 'Containers', 'HostNetworkingService'] as const).find((m) => m.toLowerCase() === name.toLowerCase());
      const present = isHns ? host.fs.isFile(name) : known ? moduleAvailable(host, known) : false;
      if (!present) {
        ctx.error(
          new PsError(
            `The specified module '${name}' was not loaded because no valid module file was found in any module directory.`,
            'Modules_ModuleNotFound,Microsoft.PowerShell.Commands.ImportModuleCommand',
            `ResourceUnavailable: (${name}:String) [Import-Module], FileNotFoundException`,
            'Import-Module',
          ),
        );
        continue;
      }
      if (isHns) host.session.modules.add('hns');
      if (args.PassThru) out.push(obj({ Name: isHns ? 'hns' : toText(known), ModuleType: 'Script' }));
    }
    return out;
  },
};

/**
 * Get-Command -Name X of a cmdlet: the command when this host has it (a gated cmdlet with its module, any
 * other cmdlet the simulator knows), else the "not recognized" error (CommandNotFoundException) that
 * `-ErrorAction SilentlyContinue` silences: how contrail-windows-ci tells the Containers cmdlets from the HNS
 * ones. Programs (whether one is on the PATH), wildcards and the other parameter sets are not modelled.
 */
export function getCommandCmdlet(known: (name: string) => 'Cmdlet' | 'Application' | undefined): Spec {
  return {
    name: 'Get-Command',
    params: { Name: { type: 'string[]', position: 0 } },
    run(host, args, _input, ctx) {
      const out = [];
      for (const name of (args.Name as string[] | undefined) ?? []) {
        if (/[*?[]/.test(name)) throw new PsUnmodelled(`Get-Command with a wildcard (${name})`, 'Get-Command');
        const module = MODULE_OF[name.toLowerCase()];
        const kind = module && !moduleAvailable(host, module) ? undefined : known(name);
        if (kind === 'Application') throw new PsUnmodelled(`Get-Command of a program (${name})`, 'Get-Command');
        if (!kind) {
          ctx.error(
            new PsError(
              `The term '${name}' is not recognized as the name of a cmdlet, function, script file, or operable program. Check the spelling of the name, or if a path was included, verify that the path is correct and try again.`,
              'CommandNotFoundException,Microsoft.PowerShell.Commands.GetCommandCommand',
              `ObjectNotFound: (${name}:String) [Get-Command], CommandNotFoundException`,
              'Get-Command',
            ),
          );
          continue;
        }
        out.push(obj({ Name: name, CommandType: kind, ...(module ? { Source: module, ModuleName: module } : {}) }));
      }
      return out;
    },
  };
}

export const MODULE_CMDLETS: Spec[] = [importModule];
