// Static .NET members the role scripts use ([Convert], [IO.File], [Console]::In, [Net.ServicePointManager]::
// SecurityProtocol); anything else is outside the subset.

import { PsTerminatingError } from './errors.js';
import type { Node } from './parser.js';
import { unsupported } from './syntax.js';
import { PsObject, toText } from './values.js';

/** Static .NET methods the roles use: [Convert]::FromBase64String and [IO.File]::WriteAllBytes. */
export function staticCall(host: unknown, type: Node, method: string, args: unknown[]): unknown {
  const name = type.text
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/^system\./, '');
  const call = `${name}::${method.toLowerCase()}`;
  if (call === 'convert::frombase64string') return Buffer.from(toText(args[0]), 'base64');
  if (call === 'io.file::writeallbytes' && Buffer.isBuffer(args[1])) {
    const write = (host as { writeBytes?: (path: string, bytes: Buffer) => string | undefined }).writeBytes;
    const problem = write ? write.call(host, toText(args[0]), args[1]) : 'not supported on this host';
    if (problem)
      throw new PsTerminatingError(
        `Exception calling "WriteAllBytes" with "2" argument(s): "${problem}"`,
        'DirectoryNotFoundException',
        'NotSpecified',
      );
    return null;
  }
  if (call === 'io.file::writealltext') {
    const write = (host as { writeText?: (path: string, text: string) => string | undefined }).writeText;
    const problem = write ? write.call(host, toText(args[0]), toText(args[1])) : 'not supported on this host';
    if (problem)
      throw new PsTerminatingError(`Exception calling "WriteAllText" with "2" argument(s): "${problem}"`, 'IOException', 'NotSpecified');
    return null;
  }
  throw unsupported(type);
}

/**
 * A host that keeps [Net.ServicePointManager]::SecurityProtocol for the running powershell.exe: the TLS versions
 * its web requests offer (SecurityProtocolType flags: Ssl3 48, Tls 192, Tls11 768, Tls12 3072; 0 SystemDefault).
 */
interface TlsHost {
  session?: { securityProtocol?: number };
}

const isSecurityProtocol = (name: string, member: string) =>
  /^(system\.)?net\.servicepointmanager$/.test(name) && member.toLowerCase() === 'securityprotocol';

/** Static members of .NET types: [Console]::In (standard input, how secrets arrive) and SecurityProtocol. */
export function staticMember(host: unknown, stdin: string, type: Node, member: string): unknown {
  const name = type.text.replace(/^\[|\]$/g, '').toLowerCase();
  if ((name === 'console' || name === 'system.console') && member.toLowerCase() === 'in') {
    return new PsObject('System.IO.TextReader', [['ReadToEnd', { kind: 'method', call: () => stdin }]]);
  }
  const session = (host as TlsHost).session;
  if (isSecurityProtocol(name, member) && session?.securityProtocol !== undefined) return session.securityProtocol;
  throw unsupported(type);
}

/** `[Net.ServicePointManager]::SecurityProtocol = value` (a flags number); no other static property is settable here. */
export function staticAssign(host: unknown, type: Node, member: string, value: unknown): void {
  const name = type.text.replace(/^\[|\]$/g, '').toLowerCase();
  const session = (host as TlsHost).session;
  if (!isSecurityProtocol(name, member) || session?.securityProtocol === undefined) throw unsupported(type);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new PsTerminatingError(
      `Exception setting "SecurityProtocol": "Cannot convert value "${toText(value)}" to type "System.Net.SecurityProtocolType"."`,
      'ExceptionWhenSetting',
      'NotSpecified: (:) [], SetValueInvocationException',
    );
  session.securityProtocol = value;
}
