// PowerShell's operators on simulated values (about_Operators, about_Comparison_Operators, about_Split,
// about_Arithmetic_Operators): case-insensitive unless the c-form (-ceq, -cmatch, ...) is used; a comparison
// with a collection on the left filters it; an operator the simulator does not model is refused.

import { toNumber } from './casts.js';
import { PsTerminatingError } from './errors.js';
import { formatOperator } from './format.js';
import { dotnetRegex, regexReplace, regexSplit } from './regex.js';
import { notModelled } from './syntax.js';
import { isTruthy, looseEquals, PsObject, toItems, toText, wildcardMatch } from './values.js';

const COMPARISONS = new Set([
  'eq',
  'ne',
  'gt',
  'ge',
  'lt',
  'le',
  'like',
  'notlike',
  'match',
  'notmatch',
  'contains',
  'notcontains',
  'in',
  'notin',
  'replace',
  'split',
]);
/** Comparisons that, with a collection on the left, return the matching items. */
const FILTERING = new Set(['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'like', 'notlike', 'match', 'notmatch']);

/** `$Matches` after a successful scalar -match: group numbers and names as keys (about_Automatic_Variables). */
export type MatchesSink = (matches: PsObject) => void;

export function matchesTable(m: RegExpExecArray): PsObject {
  const table = new PsObject('System.Collections.Hashtable');
  const named = new Set(Object.values(m.groups ?? {}));
  for (const [name, value] of Object.entries(m.groups ?? {})) if (value !== undefined) table.set(name, value);
  m.forEach((value, i) => {
    if (value !== undefined && !(i > 0 && named.has(value) && m.groups)) table.set(String(i), value);
  });
  return table;
}

function equals(left: unknown, right: unknown, cs: boolean): boolean {
  if (cs && typeof left === 'string') return left === toText(right);
  return looseEquals(left, right);
}

function comparison(name: string, cs: boolean, left: unknown, right: unknown, onMatches?: MatchesSink): unknown {
  if (Array.isArray(left) && FILTERING.has(name)) return left.filter((item) => comparison(name, cs, item, right) === true);
  const text = (v: unknown) => (cs ? toText(v) : toText(v).toLowerCase());
  switch (name) {
    case 'eq':
      return equals(left, right, cs);
    case 'ne':
      return !equals(left, right, cs);
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le': {
      const c = typeof left === 'number' ? left - toNumber(right) : text(left) < text(right) ? -1 : text(left) > text(right) ? 1 : 0;
      return { gt: c > 0, ge: c >= 0, lt: c < 0, le: c <= 0 }[name];
    }
    case 'like':
    case 'notlike':
      return wildcardMatch(toText(left), toText(right), cs) === (name === 'like');
    case 'match':
    case 'notmatch': {
      const m = dotnetRegex(toText(right), cs).exec(toText(left));
      if (m) onMatches?.(matchesTable(m));
      return (m !== null) === (name === 'match');
    }
    case 'contains':
      return toItems(left).some((item) => equals(item, right, cs));
    case 'notcontains':
      return !toItems(left).some((item) => equals(item, right, cs));
    case 'in':
      return toItems(right).some((item) => equals(item, left, cs));
    case 'notin':
      return !toItems(right).some((item) => equals(item, left, cs));
    case 'replace': {
      const [pattern, replacement] = Array.isArray(right) ? right : [right, ''];
      if (Array.isArray(right) && right.length > 2) throw notModelled('-replace with more than a pattern and a replacement');
      const one = (v: unknown) => regexReplace(toText(v), toText(pattern), toText(replacement), cs);
      return Array.isArray(left) ? left.map(one) : one(left);
    }
    default: {
      const [pattern, max, options] = Array.isArray(right) ? right : [right, 0];
      if (options !== undefined || isScriptBlockLike(pattern)) throw notModelled('-split with options or a script block');
      return toItems(left).flatMap((v) => regexSplit(toText(v), toText(pattern), toNumber(max), cs));
    }
  }
}

function isScriptBlockLike(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'scriptblock';
}

export function unaryOperator(op: string, value: unknown): unknown {
  switch (op.toLowerCase()) {
    case '-not':
    case '!':
      return !isTruthy(value);
    case '-':
      return -toNumber(value);
    case '+':
      return toNumber(value);
    case '-split':
      return toItems(value).flatMap((v) =>
        toText(v)
          .trim()
          .split(/\s+/)
          .filter((s) => s !== ''),
      );
    case '-join':
      return toItems(value).map(toText).join('');
    default:
      throw notModelled(`the unary operator '${op}'`);
  }
}

function arithmetic(op: string, left: unknown, right: unknown): unknown {
  if (op === '+') {
    if (Array.isArray(left)) return [...left, ...toItems(right)];
    if (left === null || left === undefined) return right;
    if (typeof left === 'string') return left + toText(right);
    if (typeof left === 'number') return left + toNumber(right);
    throw notModelled(`'+' on a value of type ${left instanceof PsObject ? left.typeName : typeof left}`);
  }
  if (op === '*' && typeof left === 'string') return left.repeat(toNumber(right));
  if (op === '*' && Array.isArray(left)) return Array.from({ length: toNumber(right) }, () => left).flat();
  if (left !== null && left !== undefined && typeof left !== 'number' && typeof left !== 'string' && typeof left !== 'boolean')
    throw notModelled(`'${op}' on a value of type ${left instanceof PsObject ? left.typeName : typeof left}`);
  const [a, b] = [toNumber(left), toNumber(right)];
  if ((op === '/' || op === '%') && b === 0)
    throw new PsTerminatingError(
      'Attempted to divide by zero.',
      'RuntimeException',
      'NotSpecified: (:) [], RuntimeException',
      undefined,
      'System.Management.Automation.RuntimeException',
    );
  return { '-': a - b, '*': a * b, '/': a / b, '%': a % b }[op];
}

export function binaryOperator(op: string, left: unknown, right: unknown, onMatches?: MatchesSink): unknown {
  const o = op.toLowerCase();
  const name = o.slice(1);
  if (o.startsWith('-') && COMPARISONS.has(name)) return comparison(name, false, left, right, onMatches);
  // -ceq is case-sensitive, -ieq says the default out loud.
  if (/^-[ci]/.test(o) && COMPARISONS.has(name.slice(1))) return comparison(name.slice(1), name[0] === 'c', left, right, onMatches);
  switch (o) {
    case '-xor':
      return isTruthy(left) !== isTruthy(right);
    case '-join':
      return toItems(left).map(toText).join(toText(right));
    case '-f':
      return formatOperator(toText(left), right);
    case '-band':
      return toNumber(left) & toNumber(right);
    case '-bor':
      return toNumber(left) | toNumber(right);
    case '..': {
      const [from, to] = [toNumber(left), toNumber(right)];
      const step = from <= to ? 1 : -1;
      return Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => from + i * step);
    }
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
      return arithmetic(o, left, right);
    default:
      throw notModelled(`the operator '${op}'`);
  }
}
