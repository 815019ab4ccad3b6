// Conversions as PowerShell's casts and arithmetic make them: `[int]'12'` is 12, `[int]'abc'` is an error
// (never NaN), `[int]2.5` rounds to even. Messages and error ids as Windows PowerShell 5.1 prints them
// (about_Type_Conversion; System.Convert rounds half to even).

import { PsTerminatingError } from './errors.js';
import { notModelled } from './syntax.js';
import { isTruthy, PsEnum, toItems, toText } from './values.js';

const RUNTIME = 'System.Management.Automation.RuntimeException';
const INT32 = { name: 'System.Int32', min: -(2 ** 31), max: 2 ** 31 - 1 };
const INT64 = { name: 'System.Int64', min: -(2 ** 63), max: 2 ** 63 - 1 };

function castError(value: unknown, type: string, reason: string, id: string): PsTerminatingError {
  return new PsTerminatingError(
    `Cannot convert value "${toText(value)}" to type "${type}". Error: "${reason}"`,
    id,
    'InvalidArgument: (:) [], RuntimeException',
    undefined,
    RUNTIME,
  );
}

/** A string as a number the way PowerShell reads one: trimmed, decimal or 0x hex, empty is 0; else undefined. */
function parseNumber(text: string): number | undefined {
  const t = text.trim();
  if (t === '') return 0;
  if (/^[+-]?0x[0-9a-f]+$/i.test(t)) return (t.startsWith('-') ? -1 : 1) * Number.parseInt(t.replace(/^[+-]?0x/i, ''), 16);
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return Number(t);
  return undefined;
}

/** A value as a number, for arithmetic and numeric casts; a string that is no number is a cast error. */
export function toNumber(value: unknown, type = INT32.name): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof PsEnum) return value.value;
  if (typeof value === 'string') {
    const n = parseNumber(value);
    if (n === undefined) throw castError(value, type, 'Input string was not in a correct format.', 'InvalidCastFromStringToInteger');
    return n;
  }
  if (Array.isArray(value) && value.length === 1) return toNumber(value[0], type);
  throw castError(
    value,
    type,
    `Cannot convert the "${toText(value)}" value of type "${Array.isArray(value) ? 'System.Object[]' : 'System.Object'}" to type "${type}".`,
    'ConvertToFinalInvalidCastException',
  );
}

/** Half to even, as System.Convert.ToInt32 rounds: [int]2.5 is 2, [int]3.5 is 4. */
function roundHalfEven(n: number): number {
  const floor = Math.floor(n);
  const diff = n - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

function toInteger(value: unknown, range: typeof INT32): number {
  const n = roundHalfEven(toNumber(value, range.name));
  if (n < range.min || n > range.max)
    throw castError(
      value,
      range.name,
      `Value was either too large or too small for an ${range.name.slice(7)}.`,
      typeof value === 'string' ? 'InvalidCastFromStringToInteger' : 'InvalidCastIConvertible',
    );
  return n;
}

/** `[type]value` for the types the simulator models; any other type is refused, not guessed. */
export function cast(type: string, value: unknown): unknown {
  const t = type.toLowerCase().replace(/^system\./, '');
  switch (t) {
    case 'string':
      return value === null || value === undefined ? '' : toText(value);
    case 'int':
    case 'int32':
      return toInteger(value, INT32);
    case 'long':
    case 'int64':
      return toInteger(value, INT64);
    case 'double':
    case 'single':
    case 'float':
    case 'decimal':
      return toNumber(value, 'System.Double');
    case 'bool':
    case 'boolean':
      return isTruthy(value);
    case 'array':
    case 'object[]':
      return value === null || value === undefined ? null : toItems(value);
    case 'string[]':
      return toItems(value).map((v) => cast('string', v));
    case 'int[]':
    case 'int32[]':
      return toItems(value).map((v) => toInteger(v, INT32));
    case 'void':
      return undefined;
    case 'object':
    case 'psobject':
    case 'pscustomobject':
      return value;
    default:
      throw notModelled(`the cast [${type}]`);
  }
}
