// The -f operator: .NET composite formatting, {index[,alignment][:format]} with {{ and }} as braces
// (about_Operators, "Format operator -f"; learn.microsoft.com "Composite formatting"). The numeric formats
// N, D, X and F are modelled in the invariant/en-US form; any other format string is refused.

import { PsTerminatingError } from './errors.js';
import { notModelled } from './syntax.js';
import { PsDate, PsEnum, toItems, toText } from './values.js';

function formatError(format: string, reason: string): PsTerminatingError {
  return new PsTerminatingError(
    `Error formatting a string: ${reason}`,
    'FormatError',
    `InvalidOperation: (${format}:String) [], RuntimeException`,
    undefined,
    'System.Management.Automation.RuntimeException',
  );
}

function withSeparators(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function formatValue(value: unknown, spec: string | undefined): string {
  if (spec === undefined || spec === '') return toText(value);
  if (typeof value === 'string') return value;
  if (value instanceof PsDate || value instanceof PsEnum || typeof value !== 'number')
    throw notModelled(`the format {:${spec}} of ${toText(value)}`);
  const m = /^([NnDdXxFf])(\d{0,2})$/.exec(spec);
  if (!m) throw notModelled(`the format string '${spec}'`);
  const [, letter = '', precision = ''] = m;
  const p = precision === '' ? undefined : Number(precision);
  switch (letter.toUpperCase()) {
    case 'N': {
      const [int = '', frac] = Math.abs(value)
        .toFixed(p ?? 2)
        .split('.');
      return `${value < 0 ? '-' : ''}${withSeparators(int)}${frac ? `.${frac}` : ''}`;
    }
    case 'F':
      return value.toFixed(p ?? 2);
    case 'D':
      if (!Number.isInteger(value)) throw formatError(spec, 'Format specifier was invalid.');
      return `${value < 0 ? '-' : ''}${String(Math.abs(value)).padStart(p ?? 0, '0')}`;
    default: {
      if (!Number.isInteger(value)) throw formatError(spec, 'Format specifier was invalid.');
      const hex = (value < 0 ? value + 2 ** 32 : value).toString(16).padStart(p ?? 0, '0');
      return letter === 'X' ? hex.toUpperCase() : hex;
    }
  }
}

/** `format -f args`. */
export function formatOperator(format: string, args: unknown): string {
  const values = toItems(args);
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const ch = format[i];
    if (ch === '{' && format[i + 1] === '{') {
      out += '{';
      i++;
    } else if (ch === '}' && format[i + 1] === '}') {
      out += '}';
      i++;
    } else if (ch === '{') {
      const end = format.indexOf('}', i);
      const m = end < 0 ? null : /^\s*(\d+)\s*(?:,\s*(-?\d+)\s*)?(?::(.*))?$/.exec(format.slice(i + 1, end));
      if (!m) throw formatError(format, 'Input string was not in a correct format.');
      const index = Number(m[1]);
      if (index >= values.length)
        throw formatError(format, 'Index (zero based) must be greater than or equal to zero and less than the size of the argument list..');
      const text = formatValue(values[index], m[3]);
      const width = Number(m[2] ?? 0);
      out += width < 0 ? text.padEnd(-width) : text.padStart(width);
      i = end;
    } else if (ch === '}') {
      throw formatError(format, 'Input string was not in a correct format.');
    } else out += ch;
  }
  return out;
}
