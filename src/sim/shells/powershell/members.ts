// Properties and methods of simulated values: the members the role scripts use, nothing more.

import { PsTerminatingError } from './errors.js';
import { PsDate, PsEnum, PsObject, toText } from './values.js';

function typeName(value: unknown): string {
  if (typeof value === 'string') return 'System.String';
  if (typeof value === 'number') return Number.isInteger(value) ? 'System.Int32' : 'System.Double';
  if (typeof value === 'boolean') return 'System.Boolean';
  if (Array.isArray(value)) return 'System.Object[]';
  if (value instanceof PsDate) return 'System.DateTime';
  if (value instanceof PsEnum) return 'System.Enum';
  if (value instanceof PsObject) return value.typeName;
  return 'System.Object';
}

export function getMember(target: unknown, name: string): unknown {
  const lower = name.toLowerCase();
  if (target === null || target === undefined) return null;
  if (Array.isArray(target)) {
    if (lower === 'count' || lower === 'length') return target.length;
    // Member enumeration: the property of every element that has it.
    const values = target.map((item) => getMember(item, name)).filter((v) => v !== null && v !== undefined);
    return values.length === 0 ? null : values.length === 1 ? values[0] : values;
  }
  if (typeof target === 'string' && lower === 'length') return target.length;
  if (target instanceof PsObject) {
    if (target.has(name)) return target.get(name);
    if (lower === 'count' && target.isHashtable) return target.entries().length;
    if (lower === 'keys' && target.isHashtable) return target.entries().map(([k]) => k);
    return null;
  }
  if (target instanceof PsDate) {
    if (lower === 'year') return target.date.getUTCFullYear();
    if (lower === 'ticks') return target.date.getTime() * 10_000 + 621_355_968_000_000_000;
  }
  if (lower === 'count') return 1;
  return null;
}

export function callMethod(target: unknown, method: string, args: unknown[]): unknown {
  const lower = method.toLowerCase();
  const arg = (i: number) => toText(args[i]);
  if (typeof target === 'string') {
    switch (lower) {
      case 'tolower':
      case 'tolowerinvariant':
        return target.toLowerCase();
      case 'toupper':
      case 'toupperinvariant':
        return target.toUpperCase();
      case 'trim':
        return target.trim();
      case 'contains':
        return target.includes(arg(0));
      case 'startswith':
        return target.startsWith(arg(0));
      case 'endswith':
        return target.endsWith(arg(0));
      case 'replace':
        return target.split(arg(0)).join(arg(1));
      case 'split':
        return target.split(arg(0));
      case 'tostring':
        return target;
    }
  }
  if (target instanceof PsDate && lower === 'tostring') {
    if (args.length === 0 || arg(0) === 'o' || arg(0) === 'O') return target.date.toISOString().replace('Z', '0000Z');
  }
  if (target instanceof PsDate && lower === 'touniversaltime') return target;
  if (target instanceof PsEnum && lower === 'tostring') return target.name;
  if (typeof target === 'number' && lower === 'tostring') return String(target);
  if (Array.isArray(target) && lower === 'contains') return target.some((v) => toText(v) === arg(0));
  if (target instanceof PsObject && target.isHashtable && lower === 'containskey') return target.has(arg(0));
  // Methods the simulator attaches to an object itself ([Console]::In.ReadToEnd()).
  const own =
    target instanceof PsObject ? (target.get(method) as { kind?: string; call?: (...a: unknown[]) => unknown } | undefined) : undefined;
  if (own?.kind === 'method' && own.call) return own.call(...args);
  throw new PsTerminatingError(
    `Method invocation failed because [${typeName(target)}] does not contain a method named '${method}'.`,
    'MethodNotFound',
    'InvalidOperation',
  );
}
