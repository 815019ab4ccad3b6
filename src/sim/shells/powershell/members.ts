// Properties and methods of simulated values. A member the simulator does not model on a .NET type it stands
// in for (a [datetime], a cmdlet's typed object, a string method) is refused: real .NET has it, the simulator
// cannot say what it returns. PSCustomObjects and hashtables answer $null for a missing property, as in PowerShell.

import { toNumber } from './casts.js';
import { PsTerminatingError } from './errors.js';
import { notModelled } from './syntax.js';
import { PsDate, PsEnum, PsObject, toItems, toText } from './values.js';

const PS_CUSTOM_OBJECT = 'System.Management.Automation.PSCustomObject';

function typeName(value: unknown): string {
  if (typeof value === 'string') return 'System.String';
  if (typeof value === 'number') return Number.isInteger(value) ? 'System.Int32' : 'System.Double';
  if (typeof value === 'boolean') return 'System.Boolean';
  if (Array.isArray(value)) return 'System.Object[]';
  if (Buffer.isBuffer(value)) return 'System.Byte[]';
  if (value instanceof PsDate) return 'System.DateTime';
  if (value instanceof PsEnum) return 'System.Enum';
  if (value instanceof PsObject) return value.typeName;
  return 'System.Object';
}

export function getMember(target: unknown, name: string): unknown {
  const lower = name.toLowerCase();
  // $null has a Count and a Length of 0 (about_Properties: every object has Count and Length since 3.0).
  if (target === null || target === undefined) return lower === 'count' || lower === 'length' ? 0 : null;
  if (Array.isArray(target)) {
    if (lower === 'count' || lower === 'length') return target.length;
    // Member enumeration: the property of every element that has it.
    const values = target.map((item) => getMember(item, name)).filter((v) => v !== null && v !== undefined);
    return values.length === 0 ? null : values.length === 1 ? values[0] : values;
  }
  if (Buffer.isBuffer(target) && (lower === 'length' || lower === 'count')) return target.length;
  if (typeof target === 'string' && lower === 'length') return target.length;
  if (target instanceof PsObject) {
    if (target.has(name)) return target.get(name);
    if (lower === 'count' && target.isHashtable) return target.entries().length;
    if (lower === 'keys' && target.isHashtable) return target.entries().map(([k]) => k);
    if (lower === 'values' && target.isHashtable) return target.entries().map(([, v]) => v);
    if (target.isHashtable || target.typeName === PS_CUSTOM_OBJECT) return null;
    throw notModelled(`the property '${name}' of [${target.typeName}]`);
  }
  if (target instanceof PsDate) {
    if (lower === 'year') return target.date.getUTCFullYear();
    if (lower === 'ticks') return target.date.getTime() * 10_000 + 621_355_968_000_000_000;
    throw notModelled(`the property '${name}' of [System.DateTime]`);
  }
  if (lower === 'count') return 1;
  // Strings, numbers and booleans have no other properties PowerShell scripts read: $null, as in PowerShell.
  return null;
}

/** String.Split(string) in .NET Framework 4 binds to Split(char[]): every character is a separator. */
function splitOnChars(text: string, separators: string): string[] {
  if (separators === '') return text.split(/\s/);
  const out: string[] = [];
  let current = '';
  for (const ch of text) {
    if (separators.includes(ch)) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out;
}

function trimChars(text: string, chars: string | undefined, start: boolean, end: boolean): string {
  if (chars === undefined) return start && end ? text.trim() : start ? text.trimStart() : text.trimEnd();
  let [a, b] = [0, text.length];
  while (start && a < b && chars.includes(text[a] as string)) a++;
  while (end && b > a && chars.includes(text[b - 1] as string)) b--;
  return text.slice(a, b);
}

function stringMethod(target: string, lower: string, args: unknown[]): { value: unknown } | undefined {
  const arg = (i: number) => toText(args[i]);
  const num = (i: number) => toNumber(args[i]);
  switch (lower) {
    case 'tolower':
    case 'tolowerinvariant':
      return { value: target.toLowerCase() };
    case 'toupper':
    case 'toupperinvariant':
      return { value: target.toUpperCase() };
    case 'trim':
      return { value: trimChars(target, args.length ? args.map(toText).join('') : undefined, true, true) };
    case 'trimstart':
      return { value: trimChars(target, args.length ? args.map(toText).join('') : undefined, true, false) };
    case 'trimend':
      return { value: trimChars(target, args.length ? args.map(toText).join('') : undefined, false, true) };
    case 'contains':
      return { value: target.includes(arg(0)) };
    case 'startswith':
      return { value: target.startsWith(arg(0)) };
    case 'endswith':
      return { value: target.endsWith(arg(0)) };
    case 'replace':
      return { value: target.split(arg(0)).join(arg(1)) };
    case 'split':
      if (args.length > 1) return undefined;
      return { value: splitOnChars(target, toItems(args[0]).map(toText).join('')) };
    case 'indexof':
      return args.length === 1 ? { value: target.indexOf(arg(0)) } : undefined;
    case 'substring':
      if (num(0) > target.length || (args.length > 1 && num(0) + num(1) > target.length)) return undefined;
      return { value: args.length > 1 ? target.substr(num(0), num(1)) : target.slice(num(0)) };
    case 'tostring':
      return { value: target };
    default:
      return undefined;
  }
}

function ownMethod(target: unknown, lower: string, args: unknown[]): { value: unknown } | undefined {
  if (typeof target === 'string') return stringMethod(target, lower, args);
  if (target instanceof PsDate && lower === 'tostring') {
    if (args.length === 0 || toText(args[0]) === 'o' || toText(args[0]) === 'O')
      return { value: target.date.toISOString().replace('Z', '0000Z') };
  }
  if (target instanceof PsDate && lower === 'touniversaltime') return { value: target };
  if (target instanceof PsEnum && lower === 'tostring') return { value: target.name };
  if ((typeof target === 'number' || typeof target === 'boolean') && lower === 'tostring' && args.length === 0)
    return { value: toText(target) };
  if (Array.isArray(target) && lower === 'contains') return { value: target.some((v) => toText(v) === toText(args[0])) };
  if (target instanceof PsObject && target.isHashtable) {
    if (lower === 'containskey' || lower === 'contains') return { value: target.has(toText(args[0])) };
    if (lower === 'add') {
      if (target.has(toText(args[0])))
        throw new PsTerminatingError(
          `Exception calling "Add" with "2" argument(s): "Item has already been added. Key in dictionary: '${toText(args[0])}'  Key being added: '${toText(args[0])}'"`,
          'ArgumentException',
          'NotSpecified: (:) [], MethodInvocationException',
          undefined,
          'System.Management.Automation.MethodInvocationException',
        );
      target.set(toText(args[0]), args[1]);
      return { value: undefined };
    }
  }
  // Methods the simulator attaches to an object itself ([Console]::In.ReadToEnd(), an exception's GetType()).
  const own =
    target instanceof PsObject ? (target.get(lower) as { kind?: string; call?: (...a: unknown[]) => unknown } | undefined) : undefined;
  if (own?.kind === 'method' && own.call) return { value: own.call(...args) };
  return undefined;
}

/** The methods of System.Object, which every PSCustomObject has. */
const OBJECT_METHODS = new Set(['tostring', 'gettype', 'equals', 'gethashcode']);

export function callMethod(target: unknown, method: string, args: unknown[]): unknown {
  const lower = method.toLowerCase();
  if (target === null || target === undefined)
    throw new PsTerminatingError(
      'You cannot call a method on a null-valued expression.',
      'InvokeMethodOnNull',
      'InvalidOperation: (:) [], RuntimeException',
      undefined,
      'System.Management.Automation.RuntimeException',
    );
  const result = ownMethod(target, lower, args);
  if (result) return result.value;
  if (target instanceof PsObject && target.typeName === PS_CUSTOM_OBJECT && !OBJECT_METHODS.has(lower))
    throw new PsTerminatingError(
      `Method invocation failed because [${typeName(target)}] does not contain a method named '${method}'.`,
      'MethodNotFound',
      'InvalidOperation: (:) [], RuntimeException',
      undefined,
      'System.Management.Automation.RuntimeException',
    );
  throw notModelled(`the method ${method}(${args.length} argument(s)) of [${typeName(target)}]`);
}
