// Values between real pwsh and the simulated host, as JSON: what a simulated cmdlet returns goes to pwsh (where
// real-pwsh-runtime.ts rebuilds it as objects with their .NET type names), and what a script binds or pipes to a
// cmdlet comes back. Tagged objects carry what plain JSON cannot: type names, enums, dates, hashtables, bytes.

import { INSTALL_STATE, PsDate, PsEnum, PsObject, SERVICE_STATUS, START_MODE } from '../../shells/powershell/values.js';

export type Wire = null | string | number | boolean | Wire[] | { [key: string]: Wire };

/**
 * The .NET enum behind each of the simulator's enum tables: ServiceController's Status and StartType
 * (System.ServiceProcess), and Get-WindowsFeature's InstallState (ServerManager's own enum, which Linux pwsh lacks:
 * real-pwsh-runtime.ts declares it).
 */
const ENUM_TYPES = new Map<Record<string, number>, string>([
  [SERVICE_STATUS, 'System.ServiceProcess.ServiceControllerStatus'],
  [START_MODE, 'System.ServiceProcess.ServiceStartMode'],
  [INSTALL_STATE, 'InstallState'],
]);

function enumType(value: PsEnum): string {
  for (const [table, type] of ENUM_TYPES) if (table[value.name] === value.value) return type;
  throw new Error(`real pwsh bridge: no .NET type known for the enum value ${value.name} (${value.value})`);
}

/** A simulated value as the wire carries it to pwsh. */
export function toWire(value: unknown): Wire {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map(toWire);
  if (value instanceof PsEnum) return { $e: enumType(value), v: value.value };
  if (value instanceof PsDate) return { $d: value.date.toISOString() };
  if (Buffer.isBuffer(value)) return { $b: value.toString('base64') };
  if (value instanceof PsObject) {
    const props: Record<string, Wire> = {};
    // Script methods of the simulator's objects (a function in JS) have no JSON form: real pwsh says the method
    // does not exist, which is loud enough.
    for (const [k, v] of value.entries()) if (!isMethod(v)) props[k] = toWire(v);
    if (value.isHashtable) return { $h: props };
    return { $t: value.typeName, $p: props, ...(value.text !== undefined ? { $s: value.text } : {}) };
  }
  throw new Error(`real pwsh bridge: a simulated cmdlet returned a value with no wire form (${typeof value})`);
}

function isMethod(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'method';
}

/** What real pwsh sent (a bound argument or a pipeline object), as the simulated cmdlets take it. */
export function fromWire(wire: Wire): unknown {
  if (wire === null || typeof wire !== 'object') return wire;
  if (Array.isArray(wire)) return wire.map(fromWire);
  if (typeof wire.$d === 'string') return new PsDate(new Date(wire.$d));
  if (typeof wire.$e === 'string') return new PsEnum(String(wire.n), Number(wire.v));
  if (typeof wire.$b === 'string') return Buffer.from(wire.$b, 'base64');
  if (typeof wire.$sb === 'string') return { kind: 'scriptblock-from-pwsh', text: wire.$sb };
  const props = (wire.$h ?? wire.$p) as Record<string, Wire> | undefined;
  if (!props || typeof props !== 'object' || Array.isArray(props))
    throw new Error('real pwsh bridge: an object on the wire without members');
  const typeName = wire.$h ? 'System.Collections.Hashtable' : typeof wire.$t === 'string' ? wire.$t : undefined;
  const result = new PsObject(
    typeName,
    Object.entries(props).map(([k, v]) => [k, fromWire(v)]),
  );
  if (typeof wire.$s === 'string') result.text = wire.$s;
  return result;
}
