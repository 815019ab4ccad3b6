// Static .NET members the role scripts use ([Convert], [IO.File], [Console]::In); anything else is outside the subset.

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

/** Static members of .NET types: only [Console]::In (standard input, how secrets arrive) is simulated. */
export function staticMember(stdin: string, type: Node, member: string): unknown {
  const name = type.text.replace(/^\[|\]$/g, '').toLowerCase();
  if ((name === 'console' || name === 'system.console') && member.toLowerCase() === 'in') {
    return new PsObject('System.IO.TextReader', [['ReadToEnd', { kind: 'method', call: () => stdin }]]);
  }
  throw unsupported(type);
}
