// Bash arithmetic, $(( )) and (( )), as the bash manual's ARITHMETIC EVALUATION defines it: 64-bit integers,
// C precedence, variables by name, assignments. Parsed from the text here, because tree-sitter-bash reads
// `-x + 1` as -(x + 1). An error ends the script with status 1, as `bash -c` does.

import { BashFatal } from './errors.js';

export interface ArithmeticScope {
  read(name: string): string | undefined;
  write(name: string, value: string): void;
}

/** Binary operators, lowest precedence first; ** is right-associative. */
const LEVELS: string[][] = [
  ['||'],
  ['&&'],
  ['|'],
  ['^'],
  ['&'],
  ['==', '!='],
  ['<=', '>=', '<', '>'],
  ['<<', '>>'],
  ['+', '-'],
  ['*', '/', '%'],
  ['**'],
];
const ASSIGNMENTS = ['=', '*=', '/=', '%=', '+=', '-=', '<<=', '>>=', '&=', '^=', '|='];
const TOKEN =
  /\s*(\d+#[0-9a-zA-Z@_]+|0[xX][0-9a-fA-F]+|\d+|[A-Za-z_][A-Za-z0-9_]*|\*\*|<<=|>>=|\+\+|--|[-+*/%&^|<>=!]=|&&|\|\||<<|>>|[-+*/%&^|<>=!~?:(),])/y;

function fail(expression: string, message: string, token: string): BashFatal {
  return new BashFatal(`${expression.trim()}: ${message} (error token is "${token}")\n`, 1);
}

function parseNumber(text: string, expression: string): bigint {
  const based = /^(\d+)#(.+)$/.exec(text);
  if (based) {
    const base = Number(based[1]);
    let n = 0n;
    for (const ch of based[2] as string) {
      const digit = Number.parseInt(ch, 36);
      if (Number.isNaN(digit) || digit >= base || base > 36) throw fail(expression, 'value too great for base', text);
      n = n * BigInt(base) + BigInt(digit);
    }
    return n;
  }
  if (/^0[xX]/.test(text)) return BigInt(text);
  if (/^0\d+$/.test(text)) {
    if (/[89]/.test(text)) throw fail(expression, 'value too great for base', text);
    return BigInt(`0o${text.slice(1)}`);
  }
  return BigInt(text);
}

const wrap = (n: bigint) => BigInt.asIntN(64, n);

/** Evaluates an arithmetic expression (already through parameter expansion) to a 64-bit integer. */
export function evaluateArithmetic(expression: string, scope: ArithmeticScope): bigint {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < expression.length) {
    if (/^\s*$/.test(expression.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(expression);
    if (!m) throw fail(expression, 'syntax error: invalid arithmetic operator', expression.slice(at).trim());
    tokens.push(m[1] as string);
    at = TOKEN.lastIndex;
  }
  let pos = 0;
  const peek = () => tokens[pos];
  const rest = () => tokens.slice(pos).join(' ');
  const variable = (name: string): bigint => {
    const value = (scope.read(name) ?? '').trim();
    if (value === '') return 0n;
    return /^-?\d+$/.test(value) ? BigInt(value) : evaluateArithmetic(value, scope);
  };

  const primary = (): bigint => {
    const t = tokens[pos++];
    if (t === undefined) throw fail(expression, 'syntax error: operand expected', rest());
    if (t === '(') {
      const v = comma();
      if (tokens[pos++] !== ')') throw fail(expression, "syntax error: missing `)'", rest());
      return v;
    }
    if (t === '-' || t === '+' || t === '!' || t === '~') {
      const v = unary();
      return t === '-' ? wrap(-v) : t === '+' ? v : t === '!' ? BigInt(v === 0n) : wrap(~v);
    }
    if (t === '++' || t === '--') {
      const name = tokens[pos++] ?? '';
      if (!/^[A-Za-z_]/.test(name)) throw fail(expression, 'syntax error: operand expected', rest());
      const v = wrap(variable(name) + (t === '++' ? 1n : -1n));
      scope.write(name, String(v));
      return v;
    }
    if (/^\d/.test(t)) return parseNumber(t, expression);
    if (/^[A-Za-z_]/.test(t)) {
      if (peek() === '++' || peek() === '--') {
        const before = variable(t);
        scope.write(t, String(wrap(before + (tokens[pos++] === '++' ? 1n : -1n))));
        return before;
      }
      if (ASSIGNMENTS.includes(peek() ?? '')) {
        const op = tokens[pos++] as string;
        const right = assignment();
        const v = op === '=' ? right : binary(op.slice(0, -1), variable(t), right);
        scope.write(t, String(v));
        return v;
      }
      return variable(t);
    }
    throw fail(expression, 'syntax error: operand expected', `${t} ${rest()}`.trim());
  };
  const unary = primary;

  const binary = (op: string, a: bigint, b: bigint): bigint => {
    switch (op) {
      case '+':
        return wrap(a + b);
      case '-':
        return wrap(a - b);
      case '*':
        return wrap(a * b);
      case '/':
      case '%':
        if (b === 0n) throw fail(expression, 'division by 0', String(b));
        return op === '/' ? wrap(a / b) : wrap(a % b);
      case '**':
        if (b < 0n) throw fail(expression, 'exponent less than 0', String(b));
        return wrap(a ** b);
      case '<<':
        return wrap(a << b);
      case '>>':
        return a >> b;
      case '&':
        return a & b;
      case '|':
        return a | b;
      case '^':
        return a ^ b;
      case '&&':
        return BigInt(a !== 0n && b !== 0n);
      case '||':
        return BigInt(a !== 0n || b !== 0n);
      default:
        return BigInt({ '==': a === b, '!=': a !== b, '<': a < b, '>': a > b, '<=': a <= b, '>=': a >= b }[op] ?? false);
    }
  };

  const level = (i: number): bigint => {
    const ops = LEVELS[i];
    if (!ops) return unary();
    let left = level(i + 1);
    while (ops.includes(peek() ?? '')) {
      const op = tokens[pos++] as string;
      // ** groups to the right: 2**3**2 is 2**9.
      const right = op === '**' ? level(i) : level(i + 1);
      left = binary(op, left, right);
    }
    return left;
  };

  const ternary = (): bigint => {
    const condition = level(0);
    if (peek() !== '?') return condition;
    pos++;
    const yes = assignment();
    if (tokens[pos++] !== ':') throw fail(expression, "syntax error: `:' expected for conditional expression", rest());
    const no = assignment();
    return condition !== 0n ? yes : no;
  };
  const assignment = ternary;

  const comma = (): bigint => {
    let v = assignment();
    while (peek() === ',') {
      pos++;
      v = assignment();
    }
    return v;
  };

  if (tokens.length === 0) return 0n;
  const result = comma();
  if (pos < tokens.length) throw fail(expression, 'syntax error in expression', rest());
  return result;
}
