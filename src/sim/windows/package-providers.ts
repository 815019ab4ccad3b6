// PackageManagement providers in the simulator: a provider exists only once installed. A fresh Windows
// Server has msi, msu, PowerShellGet and Programs; NuGet comes from Install-PackageProvider, and
// DockerMsftProvider from Install-Module, which needs NuGet first (PowerShellGet: "NuGet provider is
// required to continue"; Microsoft's Docker on Windows Server instructions install both in that order).

import { type CmdletSpec, obj } from '../shells/powershell/commands.js';
import { PsError, PsTerminatingError } from '../shells/powershell/errors.js';
import type { WindowsHost } from './windows-host.js';

type Spec = CmdletSpec<WindowsHost>;

const BUILT_IN = ['msi', 'msu', 'PowerShellGet', 'Programs'];
/** Providers and modules the simulated PowerShell Gallery serves. */
const GALLERY_PROVIDERS = ['NuGet'];
const GALLERY_MODULES: Record<string, string | undefined> = { dockermsftprovider: 'DockerMsftProvider' };

export function providerInstalled(host: WindowsHost, name: string): boolean {
  return [...BUILT_IN, ...host.state.packageProviders].some((p) => p.toLowerCase() === name.toLowerCase());
}

/** What PackageManagement says of a provider it does not have (OneGet's UnknownProviderFromActivatedList). */
export function unknownProvider(name: string, cmdlet: 'GetPackage' | 'InstallPackage' | 'GetPackageProvider'): PsTerminatingError {
  const verb = { GetPackage: 'Get-Package', InstallPackage: 'Install-Package', GetPackageProvider: 'Get-PackageProvider' }[cmdlet];
  return new PsTerminatingError(
    `Unable to find package provider '${name}'. It may not be imported yet. Try 'Get-PackageProvider -ListAvailable'.`,
    `UnknownProviderFromActivatedList,Microsoft.PowerShell.PackageManagement.Cmdlets.${cmdlet}`,
    `ObjectNotFound: (Microsoft.Power...:${cmdlet}) [${verb}], Exception`,
    verb,
  );
}

const VERSIONS = { MinimumVersion: { type: 'string' }, MaximumVersion: { type: 'string' }, RequiredVersion: { type: 'string' } } as const;

const getPackageProvider: Spec = {
  name: 'Get-PackageProvider',
  params: { Name: { type: 'string[]', position: 0 }, ListAvailable: { type: 'switch' }, Force: { type: 'switch' }, ...VERSIONS },
  run(host, args, _input, ctx) {
    const all = [...BUILT_IN, ...host.state.packageProviders];
    const wanted = args.Name as string[] | undefined;
    if (!wanted) return all.map((p) => obj({ Name: p }));
    const out = [];
    for (const name of wanted) {
      const found = all.find((p) => p.toLowerCase() === name.toLowerCase());
      if (found) out.push(obj({ Name: found }));
      else {
        const e = unknownProvider(name, 'GetPackageProvider');
        ctx.error(new PsError(e.message, e.errorId, e.category, e.source));
      }
    }
    return out;
  },
};

const installPackageProvider: Spec = {
  name: 'Install-PackageProvider',
  params: {
    Name: { type: 'string[]', position: 0, mandatory: true },
    ...VERSIONS,
    Scope: { type: 'string', values: ['CurrentUser', 'AllUsers'] },
    Source: { type: 'string[]' },
    Force: { type: 'switch' },
    ForceBootstrap: { type: 'switch' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const out = [];
    for (const name of args.Name as string[]) {
      const provider = GALLERY_PROVIDERS.find((p) => p.toLowerCase() === name.toLowerCase());
      if (!provider) {
        ctx.error(
          new PsError(
            `No match was found for the specified search criteria for the provider '${name}'. The package provider requires 'PackageManagement' and 'Provider' tags. Please check if the specified package has the tags.`,
            'NoMatchFoundForProvider,Microsoft.PowerShell.PackageManagement.Cmdlets.InstallPackageProvider',
            'InvalidArgument',
            'Install-PackageProvider',
          ),
        );
        continue;
      }
      if (!host.state.packageProviders.includes(provider)) {
        host.state.packageProviders.push(provider);
        host.record(`install-package-provider ${provider}`);
      }
      out.push(
        obj({ Name: provider, Version: '2.8.5.208', Source: 'https://onegetcdn.azureedge.net/providers/nuget-2.8.5.208.package.swidtag' }),
      );
    }
    return out;
  },
};

const installModule: Spec = {
  name: 'Install-Module',
  params: {
    Name: { type: 'string[]', position: 0, mandatory: true },
    ...VERSIONS,
    Repository: { type: 'string[]' },
    Scope: { type: 'string', values: ['CurrentUser', 'AllUsers'] },
    AllowClobber: { type: 'switch' },
    SkipPublisherCheck: { type: 'switch' },
    Force: { type: 'switch' },
    PassThru: { type: 'switch' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    if (!providerInstalled(host, 'NuGet'))
      throw new PsTerminatingError(
        "NuGet provider is required to interact with NuGet-based repositories. Please ensure that '2.8.5.201' or newer version of NuGet provider is installed.",
        'CouldNotInstallNuGetProvider,Install-Module',
        'InvalidOperation: (:) [Install-Module], InvalidOperationException',
        'Install-Module',
      );
    for (const name of args.Name as string[]) {
      const module = GALLERY_MODULES[name.toLowerCase()];
      if (!module) {
        ctx.error(
          new PsError(
            `No match was found for the specified search criteria and module name '${name}'. Try Get-PSRepository to see all available registered module repositories.`,
            'NoMatchFoundForCriteria,Microsoft.PowerShell.PackageManagement.Cmdlets.InstallPackage',
            'ObjectNotFound',
            'PackageManagement\\Install-Package',
          ),
        );
        continue;
      }
      if (!host.state.psModules.includes(module)) {
        host.state.psModules.push(module);
        // DockerMsftProvider is a PackageManagement provider written as a module: installing it adds the provider.
        host.state.packageProviders.push(module);
        host.record(`install-module ${module}`);
      }
    }
    return [];
  },
};

export const PROVIDER_CMDLETS: Spec[] = [getPackageProvider, installPackageProvider, installModule];
