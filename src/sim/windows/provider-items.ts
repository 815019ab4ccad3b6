// What Get-ChildItem lists outside the file system: the named-pipe namespace and the certificate stores the
// simulator models. Anything else of those providers is refused by name.

import { obj } from '../shells/powershell/commands.js';
import { PsUnmodelled } from '../shells/powershell/errors.js';
import type { PsObject } from '../shells/powershell/values.js';
import type { WindowsHost } from './windows-host.js';

/** `\\.\pipe\` and `//./pipe/` (how peer scripts list pipes: Rancher's and Docker's `Get-ChildItem //./pipe/`). */
const PIPE_NAMESPACE = /^(\\\\|\/\/)\.(\\|\/)pipe(\\|\/)?$/i;
const CERT_PATH = /^cert:(\\|\/)?/i;
const CERT_STORE = /^cert:[\\/]localmachine[\\/](root|trustedpublisher)[\\/]?$/i;

/** The path's children, or undefined when the path is the file system's. */
export function providerChildren(host: WindowsHost, path: string): PsObject[] | undefined {
  if (PIPE_NAMESPACE.test(path))
    // Windows lists each instance of a pipe as a FileInfo named after the pipe, under \\.\pipe\.
    return host
      .pipes()
      .map((name) => obj({ Name: name, FullName: `\\\\.\\pipe\\${name}`, PSIsContainer: false, Length: 1 }, 'System.IO.FileInfo'));
  if (!CERT_PATH.test(path)) return undefined;
  const store = CERT_STORE.exec(path)?.[1]?.toLowerCase();
  // A real store also holds the certificates Windows ships (Root: Microsoft's and the public CAs); the simulator
  // holds only what was imported, so any listing but of these two stores is refused.
  if (!store) throw new PsUnmodelled(`listing '${path}' (only Cert:\\LocalMachine\\Root and \\TrustedPublisher)`, 'Get-ChildItem');
  const certs = store === 'root' ? host.state.certStores.Root : host.state.certStores.TrustedPublisher;
  const location = store === 'root' ? 'Root' : 'TrustedPublisher';
  return Object.entries(certs).map(([thumbprint, subject]) =>
    obj(
      {
        Thumbprint: thumbprint,
        Subject: subject,
        PSPath: `Microsoft.PowerShell.Security\\Certificate::LocalMachine\\${location}\\${thumbprint}`,
        PSParentPath: `Microsoft.PowerShell.Security\\Certificate::LocalMachine\\${location}`,
      },
      'System.Security.Cryptography.X509Certificates.X509Certificate2',
    ),
  );
}
