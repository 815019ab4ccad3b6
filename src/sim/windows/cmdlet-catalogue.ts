// The cmdlet catalogue: every cmdlet the simulator answers (and so every cmdlet the Windows roles may emit),
// with the parameter sets and aliases of its reference page. Generated from the SYNTAX and PARAMETERS
// sections of MicrosoftDocs/windows-powershell-docs (docset/winserver2019-ps, commit f113d6bd) and
// MicrosoftDocs/PowerShell-Docs (reference/5.1, commit 27138b21); the PackageManagement, PowerShellGet and
// Containers entries at the end are written from their pages on learn.microsoft.com (not in the stored
// corpus) and from how Contrail's own scripts call them. A simulated cmdlet may declare only parameters its
// entry has (windows-shell.ts checks at start), and a call must fit one parameter set.
//

import { type Entry, GENERATED } from './cmdlet-catalogue-data.js';
import { TYPES } from './cmdlet-catalogue-types.js';

const WRITTEN: Record<string, Entry> = {
  // https://learn.microsoft.com/powershell/module/packagemanagement/get-package?view=powershell-5.1
  'Get-Package': [
    'learn.microsoft.com/powershell/module/packagemanagement/get-package (5.1)',
    'PackageManagement:Name,RequiredVersion,MinimumVersion,MaximumVersion,AllVersions,Force,ForceBootstrap,ProviderName',
    'ProviderName=Provider',
    false,
  ],
  'Install-Package': [
    'learn.microsoft.com/powershell/module/packagemanagement/install-package (5.1)',
    'PackageBySearch:Name,RequiredVersion,MinimumVersion,MaximumVersion,Source,Credential,Proxy,ProxyCredential,AllVersions,Force,ForceBootstrap,ProviderName;PackageByInputObject:InputObject,Credential,Proxy,ProxyCredential,AllVersions,Force,ForceBootstrap',
    'ProviderName=Provider',
    true,
  ],
  'Get-PackageProvider': [
    'learn.microsoft.com/powershell/module/packagemanagement/get-packageprovider (5.1)',
    'Default:Name,ListAvailable,Force,ForceBootstrap,AllVersions,MinimumVersion,MaximumVersion,RequiredVersion',
    '',
    false,
  ],
  'Install-PackageProvider': [
    'learn.microsoft.com/powershell/module/packagemanagement/install-packageprovider (5.1)',
    'PackageBySearch:Name,RequiredVersion,MinimumVersion,MaximumVersion,Credential,Scope,Source,AllVersions,Force,ForceBootstrap,Proxy,ProxyCredential;PackageByInputObject:InputObject,Scope,Force,ForceBootstrap,Credential,Proxy,ProxyCredential',
    '',
    true,
  ],
  'Install-Module': [
    'learn.microsoft.com/powershell/module/powershellget/install-module (PowerShellGet 2)',
    'NameParameterSet:Name,MinimumVersion,MaximumVersion,RequiredVersion,Repository,Credential,Scope,Proxy,ProxyCredential,AllowClobber,SkipPublisherCheck,Force,AllowPrerelease,AcceptLicense,PassThru;InputObject:InputObject,Credential,Scope,Proxy,ProxyCredential,AllowClobber,SkipPublisherCheck,Force,AcceptLicense,PassThru',
    '',
    true,
  ],
  // The Containers module of Server 2016 (not on 2019: modules.ts): Juniper/contrail-ansible-deployer
  // install_software_Win32NT.yml (`Get-ContainerNetwork | Remove-ContainerNetwork -Force`, on 2016) and
  // Juniper/contrail-windows-ci's diagnostic check.
  'Get-ContainerNetwork': ['Containers module (Server 2016), as c-a-d and contrail-windows-ci call it', 'Default:Name;Id:Id', '', false],
  'Remove-ContainerNetwork': [
    'Containers module (Server 2016), as c-a-d and contrail-windows-ci call it',
    'Name:Name,Force;InputObject:InputObject,Force',
    '',
    true,
  ],
  // How contrail-windows-ci and contrail-windows-tools tell the Containers cmdlets from the HNS ones.
  'Get-Command': [
    'MicrosoftDocs/PowerShell-Docs/reference/5.1/Microsoft.PowerShell.Core/Get-Command.md',
    'CmdletSet:Verb,Noun,Module,FullyQualifiedModule,TotalCount,Syntax,ShowCommandInfo,ArgumentList,All,ListImported,ParameterName,ParameterType;AllCommandSet:Name,Module,FullyQualifiedModule,CommandType,TotalCount,Syntax,ShowCommandInfo,ArgumentList,All,ListImported,ParameterName,ParameterType',
    'Module=PSSnapin,CommandType=Type',
    false,
  ],
  // The diagnostic check's NamedPipeClientStream (pipe-client.ts).
  'New-Object': [
    'MicrosoftDocs/PowerShell-Docs/reference/5.1/Microsoft.PowerShell.Utility/New-Object.md',
    'Net:TypeName,ArgumentList,Property;Com:ComObject,Strict,Property',
    'ArgumentList=Args',
    false,
  ],
  // NetTCPIP, the same on Server 2016 and 2019: the parameter sets PSScriptAnalyzer's compatibility profiles
  // record for 10.0.14393 and 10.0.17763 (PowerShell/PSScriptAnalyzer ad713a08, CrossCompatibility/profiles).
  'Test-NetConnection': [
    'MicrosoftDocs/windows-powershell-docs/docset/winserver2019-ps/NetTCPIP/Test-NetConnection.md (sets: PSScriptAnalyzer profiles)',
    'ICMP:ComputerName,InformationLevel,TraceRoute,Hops;CommonTCPPort:ComputerName,InformationLevel,CommonTCPPort;RemotePort:ComputerName,InformationLevel,Port;NetRouteDiagnostics:ComputerName,InformationLevel,DiagnoseRouting,ConstrainSourceAddress,ConstrainInterface',
    'ComputerName=RemoteAddress|cn,Port=RemotePort',
    false,
  ],
  // Refused on an adapter the host lacks (vmswitch-cmdlets.ts); commit 6d333929 of the page.
  'New-VMSwitch': [
    'MicrosoftDocs/windows-powershell-docs/docset/winserver2019-ps/Hyper-V/New-VMSwitch.md',
    'NetAdapterName:CimSession,ComputerName,Credential,Name,AllowManagementOS,NetAdapterName,Notes,MinimumBandwidthMode,EnableIov,EnablePacketDirect,EnableEmbeddedTeaming;NetAdapterInterfaceDescription:CimSession,ComputerName,Credential,Name,AllowManagementOS,NetAdapterInterfaceDescription,Notes,MinimumBandwidthMode,EnableIov,EnablePacketDirect,EnableEmbeddedTeaming;SwitchType:CimSession,ComputerName,Credential,Name,SwitchType,Notes,MinimumBandwidthMode,EnableIov,EnablePacketDirect,EnableEmbeddedTeaming',
    'ComputerName=PSComputerName,Name=SwitchName,NetAdapterInterfaceDescription=InterfaceDescription,NetAdapterName=InterfaceAlias',
    true,
  ],
};

export interface CatalogueEntry {
  doc: string;
  /** Parameter set -> its parameters (common parameters excluded). */
  sets: Record<string, string[]>;
  /** Every parameter of any set, lower case -> its proper name. */
  parameters: Map<string, string>;
  aliases: Record<string, string[]>;
  shouldProcess: boolean;
  /** Parameter, lower case -> its type as the page gives it (cmdlet-catalogue-types.ts); empty for written entries. */
  types: Map<string, string>;
}

function decode([doc, sets, aliases, shouldProcess]: Entry, typeList = ''): CatalogueEntry {
  const bySet = Object.fromEntries(
    sets.split(';').map((s) => {
      const [name = 'Default', list = ''] = s.split(':');
      return [name, list.split(',').filter(Boolean)];
    }),
  );
  const parameters = new Map(Object.values(bySet).flatMap((ps) => ps.map((p) => [p.toLowerCase(), p] as const)));
  const aliasMap = Object.fromEntries(
    aliases
      .split(',')
      .filter((a) => a.includes('='))
      .map((a) => {
        const [p = '', list = ''] = a.split('=');
        return [p, list.split('|')];
      }),
  );
  const types = new Map(
    typeList
      .split(',')
      .filter(Boolean)
      .map((t) => {
        const [p = '', type = ''] = t.split(':');
        return [p.toLowerCase(), type] as const;
      }),
  );
  return { doc, sets: bySet, parameters, aliases: aliasMap, shouldProcess, types };
}

const CATALOGUE = new Map(
  Object.entries({ ...GENERATED, ...WRITTEN }).map(([name, entry]) => [name.toLowerCase(), { name, ...decode(entry, TYPES[name]) }]),
);

export function catalogueEntry(cmdlet: string): (CatalogueEntry & { name: string }) | undefined {
  return CATALOGUE.get(cmdlet.toLowerCase());
}

const COMMON = new Set(['erroraction', 'warningaction', 'verbose', 'debug', 'whatif', 'confirm', 'errorvariable', 'outvariable']);

/**
 * Why a call with these bound parameters fits no parameter set of the cmdlet, or undefined when one fits
 * (PowerShell's "Parameter set cannot be resolved using the specified named parameters").
 */
export function parameterSetProblem(cmdlet: string, bound: string[]): string | undefined {
  const entry = catalogueEntry(cmdlet);
  if (!entry) return undefined;
  const given = bound.map((b) => b.toLowerCase()).filter((b) => !COMMON.has(b));
  const fits = Object.values(entry.sets).some((set) => given.every((g) => set.some((p) => p.toLowerCase() === g)));
  return fits ? undefined : 'Parameter set cannot be resolved using the specified named parameters.';
}
