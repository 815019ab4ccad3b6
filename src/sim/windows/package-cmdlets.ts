// MSI and package management in the simulator: msiexec, Get/Install-Package, certificates.

import { type CmdletSpec, type NativeSpec, obj } from '../shells/powershell/commands.js';
import { PsError } from '../shells/powershell/errors.js';
import { toItems, toText } from '../shells/powershell/values.js';
import { thumbprintOf } from './identifiers.js';
import { runMsiexec } from './msi.js';
import { providerInstalled, unknownProvider } from './package-providers.js';
import type { WindowsHost } from './windows-host.js';
import { DOCKER_EXE, DOCKERD_EXE } from './windows-paths.js';

type Spec = CmdletSpec<WindowsHost>;

/**
 * `& msiexec ...` returns at once on Windows (msiexec is a GUI program): the install runs, its exit code never
 * reaches $LASTEXITCODE, which keeps its value ($null in a fresh powershell.exe).
 */
const msiexec: NativeSpec<WindowsHost> = {
  names: ['msiexec', 'msiexec.exe'],
  run(host, argv) {
    return { stdout: '', exitCode: runMsiexec(host, argv), background: true };
  },
};

const getPackage: Spec = {
  name: 'Get-Package',
  params: { Name: { type: 'string[]', position: 0 }, ProviderName: { type: 'string[]' }, RequiredVersion: { type: 'string' } },
  run(host, args, _input, ctx) {
    const asked = args.ProviderName as string[] | undefined;
    for (const provider of asked ?? []) if (!providerInstalled(host, provider)) throw unknownProvider(provider, 'GetPackage');
    const providers = asked?.map((p) => p.toLowerCase()) ?? ['msi', 'dockermsftprovider'];
    const all = [
      ...(providers.includes('msi')
        ? Object.values(host.state.products).map((p) =>
            obj({ Name: p.name, Version: p.version, ProviderName: 'msi', FastPackageReference: p.productCode }),
          )
        : []),
      ...(providers.includes('dockermsftprovider') && host.state.docker
        ? [obj({ Name: 'docker', Version: host.state.docker.version, ProviderName: 'DockerMsftProvider' })]
        : []),
    ];
    const wanted = args.Name as string[] | undefined;
    if (!wanted) return all;
    const out = [];
    for (const name of wanted) {
      const found = all.filter((p) => toText(p.get('Name')).toLowerCase() === name.toLowerCase());
      if (found.length === 0)
        ctx.error(
          new PsError(
            `No package found for '${name}'.`,
            'NoMatchFound,Microsoft.PowerShell.PackageManagement.Cmdlets.GetPackage',
            'ObjectNotFound',
          ),
        );
      out.push(...found);
    }
    return out;
  },
};

const installPackage: Spec = {
  name: 'Install-Package',
  params: {
    Name: { type: 'string[]', position: 0, mandatory: true },
    ProviderName: { type: 'string' },
    RequiredVersion: { type: 'string' },
    Force: { type: 'switch' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const name = (args.Name as string[])[0]?.toLowerCase();
    const provider = args.ProviderName === undefined ? undefined : toText(args.ProviderName);
    if (provider !== undefined && !providerInstalled(host, provider)) throw unknownProvider(provider, 'InstallPackage');
    if (name !== 'docker' || toText(args.ProviderName).toLowerCase() !== 'dockermsftprovider') {
      ctx.error(
        new PsError(
          `No match was found for the specified search criteria and package name '${name}'.`,
          'NoMatchFoundForCriteria,Microsoft.PowerShell.PackageManagement.Cmdlets.InstallPackage',
          'ObjectNotFound',
        ),
      );
      return [];
    }
    const index = host.state.catalog.dockerIndex;
    const key = args.RequiredVersion === undefined ? Object.keys(index).at(-1) : toText(args.RequiredVersion);
    const version = key === undefined ? undefined : index[key];
    if (!version) {
      ctx.error(
        new PsError(
          `No match was found for the specified search criteria and package name 'docker' with version ${key}.`,
          'NoMatchFoundForCriteria,Microsoft.PowerShell.PackageManagement.Cmdlets.InstallPackage',
          'ObjectNotFound',
        ),
      );
      return [];
    }
    if (host.state.features.Containers === 'Available') {
      ctx.error(
        new PsError(
          'Containers feature is not installed. Please install it with Install-WindowsFeature -Name Containers.',
          'FeatureNotInstalled,Install-Package',
          'InvalidOperation',
        ),
      );
      return [];
    }
    if (host.state.docker?.version === version) return [];
    if (host.service('docker')) host.stopService('docker', true);
    host.state.docker = { version };
    host.fs.put(DOCKER_EXE, JSON.stringify({ docker: version }));
    host.fs.put(DOCKERD_EXE, JSON.stringify({ dockerd: version }));
    host.state.services.docker = {
      name: 'docker',
      displayName: 'Docker Engine',
      status: 'Stopped',
      startType: 'Automatic',
      binaryPath: `"${DOCKERD_EXE}" --run-service`,
      dependsOn: [],
    };
    host.record(`install-package docker ${version}`);
    return [obj({ Name: 'docker', Version: version, Status: 'Installed', ProviderName: 'DockerMsftProvider' })];
  },
};

function certificateAt(host: WindowsHost, path: string): { Thumbprint: string; Subject: string } | undefined {
  const text = host.fs.read(path);
  if (text === undefined) return undefined;
  const subject = /CN=[^\r\n]*/.exec(text)?.[0] ?? 'CN=Unknown';
  return { Thumbprint: thumbprintOf(text), Subject: subject };
}

const importCertificate: Spec = {
  name: 'Import-Certificate',
  params: { FilePath: { type: 'string', position: 0, mandatory: true }, CertStoreLocation: { type: 'string', mandatory: true } },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const cert = certificateAt(host, toText(args.FilePath));
    if (!cert) {
      ctx.error(
        new PsError(
          `The system cannot find the file specified. ${toText(args.FilePath)}`,
          'System.IO.FileNotFoundException,Microsoft.CertificateServices.Commands.ImportCertificateCommand',
          'ObjectNotFound',
        ),
      );
      return [];
    }
    const store = /^cert:\\localmachine\\(root|trustedpublisher)$/i.exec(toText(args.CertStoreLocation))?.[1]?.toLowerCase();
    if (!store) {
      ctx.error(
        new PsError(
          `Cannot find drive or store '${toText(args.CertStoreLocation)}' in the simulated subset (Root, TrustedPublisher).`,
          'NotSupportedBySimulator',
          'InvalidArgument',
        ),
      );
      return [];
    }
    const target = store === 'root' ? host.state.certStores.Root : host.state.certStores.TrustedPublisher;
    if (!(cert.Thumbprint in target)) host.record(`import-certificate ${store} ${cert.Thumbprint}`);
    target[cert.Thumbprint] = cert.Subject;
    return [obj(cert, 'System.Security.Cryptography.X509Certificates.X509Certificate2')];
  },
};

const getPfxCertificate: Spec = {
  name: 'Get-PfxCertificate',
  params: { FilePath: { type: 'string[]', position: 0, mandatory: true } },
  run(host, args, _input, ctx) {
    return toItems(args.FilePath).flatMap((path) => {
      const cert = certificateAt(host, toText(path));
      if (!cert)
        ctx.error(
          new PsError(`The system cannot find the path specified. ${toText(path)}`, 'GetPfxCertificateUnknownError', 'ObjectNotFound'),
        );
      return cert ? [obj(cert, 'System.Security.Cryptography.X509Certificates.X509Certificate2')] : [];
    });
  },
};

export const PACKAGE_CMDLETS: Spec[] = [getPackage, installPackage, importCertificate, getPfxCertificate];
export const PACKAGE_NATIVES: NativeSpec<WindowsHost>[] = [msiexec];
