// awk's lexer and values for the simulated awk (awk.ts): tokens, strings that are numbers, printf, field splitting.

/** A program outside the subset: awk exits 2 naming it. */
export class Refused extends Error {}

export type Value = string | number;
export type Expr = (ctx: AwkState) => Value;
export type Stmt = (ctx: AwkState) => void;

export interface AwkState {
  fields: string[];
  vars: Map<string, Value>;
  out: string[];
}

/** `next`: on to the following record. */
export class Next extends Error {}

const TOKEN =
  /\s*(?:("(?:[^"\\]|\\.)*")|(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)|([A-Za-z_][A-Za-z0-9_]*)|(&&|\|\||==|!=|<=|>=|!~|\+\+|--|\+=|-=|\*=|\/=|[-+*%<>!~=?:,;(){}$^\n])|(\/))/y;

export function tokenize(program: string): string[] {
  const tokens: string[] = [];
  let at = 0;
  while (at < program.length) {
    if (/^[ \t]*(#[^\n]*)?$/.test(program.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(program);
    if (!m) throw new Refused(`the program text at '${program.slice(at, at + 10)}'`);
    at = TOKEN.lastIndex;
    if (m[5]) {
      // A regex literal where an operand is expected, else division.
      const prev = tokens.at(-1);
      const operand = prev === undefined || /^(?:[-+*/%<>!~=?:,;({\n]|&&|\|\||==|!=|<=|>=|!~|print|printf)$/.test(prev);
      if (!operand) {
        tokens.push('/');
        continue;
      }
      let re = '';
      while (at < program.length && program[at] !== '/') {
        if (program[at] === '\\' && program[at + 1] === '/') at++;
        re += program[at++];
      }
      at++;
      tokens.push(`/${re}`);
    } else tokens.push((m[1] ?? m[2] ?? m[3] ?? m[4]) as string);
  }
  return tokens;
}

export const num = (v: Value): number => (typeof v === 'number' ? v : Number.parseFloat(v) || 0);
export const str = (v: Value): string => (typeof v === 'string' ? v : Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6))));
export const looksNumeric = (v: Value) => typeof v === 'number' || /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v);

export function unescapeAwk(s: string): string {
  return s.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', '/': '/' })[c] ?? `\\${c}`);
}

export function formatPrintf(format: string, args: Value[]): string {
  let i = 0;
  return format.replace(/%([-+ 0#]*\d*(?:\.\d+)?)([sdicfxXeg%])/g, (_, spec: string, conv: string) => {
    if (conv === '%') return '%';
    const arg = args[i++] ?? '';
    const [, flags = '', width = '', precision] = /^([-+ 0#]*)(\d*)(?:\.(\d+))?$/.exec(spec) ?? [];
    let text: string;
    if (conv === 's') text = precision !== undefined ? str(arg).slice(0, Number(precision)) : str(arg);
    else if (conv === 'c') text = typeof arg === 'number' ? String.fromCharCode(arg) : str(arg).slice(0, 1);
    else if (conv === 'd' || conv === 'i') text = String(Math.trunc(num(arg)));
    else if (conv === 'x' || conv === 'X') text = Math.trunc(num(arg)).toString(16)[conv === 'X' ? 'toUpperCase' : 'toLowerCase']();
    else if (conv === 'f') text = num(arg).toFixed(precision !== undefined ? Number(precision) : 6);
    else throw new Refused(`printf %${conv}`);
    const w = Number(width || 0);
    if (flags.includes('-')) return text.padEnd(w);
    return flags.includes('0') && conv !== 's' ? text.padStart(w, '0') : text.padStart(w);
  });
}

export function truthy(v: Value): boolean {
  return typeof v === 'number' ? v !== 0 : looksNumeric(v) ? num(v) !== 0 : v !== '';
}

export function arith(op: string, a: Value, b: Value): number {
  const [x, y] = [num(a), num(b)];
  if ((op === '/' || op === '%') && y === 0) throw new Refused('division by zero');
  return { '+': x + y, '-': x - y, '*': x * y, '/': x / y, '%': x % y }[op] ?? 0;
}

export function splitFields(line: string, fs: string): string[] {
  if (fs === ' ') return line.trim() === '' ? [] : line.trim().split(/[ \t\n]+/);
  if (line === '') return [];
  return fs.length === 1 ? line.split(fs) : line.split(new RegExp(fs));
}
