// The type a real-pwsh function declares for a Windows parameter. pwsh on Linux has the .NET base types but not
// Windows' own (ServerManager's Feature, CIM's generated enums, FileSystemCmdletProviderEncoding): those bind as
// strings, checked against the simulated cmdlet's ValidateSet where it has one, or as objects.

import type { ParamSpec } from '../../shells/powershell/commands.js';

const BASE: Record<string, string> = {
  String: 'string',
  Char: 'char',
  Int16: 'int16',
  Int32: 'int',
  Int64: 'long',
  UInt16: 'uint16',
  UInt32: 'uint32',
  UInt64: 'uint64',
  Byte: 'byte',
  Double: 'double',
  Boolean: 'bool',
  SwitchParameter: 'switch',
  DateTime: 'datetime',
  TimeSpan: 'timespan',
  Guid: 'guid',
  Uri: 'uri',
  Version: 'version',
  Object: 'object',
  PSObject: 'psobject',
  ScriptBlock: 'scriptblock',
  Hashtable: 'hashtable',
  IDictionary: 'System.Collections.IDictionary',
  PSCredential: 'pscredential',
  SecureString: 'securestring',
};

/** Windows PowerShell 5.1's -Encoding of the file cmdlets (FileSystemCmdletProviderEncoding), Byte included. */
export const ENCODINGS_51 = [
  'Unknown',
  'String',
  'Unicode',
  'Byte',
  'BigEndianUnicode',
  'UTF8',
  'UTF7',
  'UTF32',
  'Ascii',
  'Default',
  'Oem',
];

export interface DeclaredType {
  literal: string;
  validateSet?: readonly string[];
}

export function declaredType(dotnet: string | undefined, sim: ParamSpec | undefined): DeclaredType {
  const array = (dotnet ?? '').endsWith('[]') || sim?.type === 'string[]';
  const base = (dotnet ?? '').replace(/\[\]$/, '').replace(/^.*\./, '');
  const of = (t: string) => (array && t !== 'switch' ? `${t}[]` : t);
  if (base === 'FileSystemCmdletProviderEncoding') return { literal: 'string', validateSet: ENCODINGS_51 };
  const known = BASE[base];
  if (known) return { literal: of(known), ...(sim?.values ? { validateSet: sim.values } : {}) };
  switch (sim?.type) {
    case 'string':
    case 'string[]':
      return { literal: of('string'), ...(sim.values ? { validateSet: sim.values } : {}) };
    case 'int':
      return { literal: of('long') };
    case 'switch':
      return { literal: 'switch' };
    default:
      return { literal: of('object') };
  }
}
