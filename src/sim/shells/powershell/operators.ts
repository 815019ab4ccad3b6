// PowerShell's operators on simulated values (case-insensitive by default, as in PowerShell).

import { PsScriptError } from './errors.js';
import { compare, isTruthy, looseEquals, toItems, toText, wildcardMatch } from './values.js';

export function unaryOperator(op: string, value: unknown): unknown {
  switch (op.toLowerCase()) {
    case '-not':
    case '!':
      return !isTruthy(value);
    case '-':
      return -Number(value);
    case '+':
      return Number(value);
    default:
      throw new PsScriptError(`Unexpected token '${op}'.`, 'UnexpectedToken', 'ParserError');
  }
}

export function binaryOperator(op: string, left: unknown, right: unknown): unknown {
  const o = op.toLowerCase().replace(/^-i/, '-');
  // Comparison on a collection filters it, as in PowerShell.
  if (Array.isArray(left) && ['-eq', '-ne', '-like', '-notlike', '-match', '-notmatch'].includes(o)) {
    return left.filter((item) => binaryOperator(op, item, right) === true);
  }
  switch (o) {
    case '-eq':
      return looseEquals(left, right);
    case '-ne':
      return !looseEquals(left, right);
    case '-gt':
      return compare(left, right) > 0;
    case '-ge':
      return compare(left, right) >= 0;
    case '-lt':
      return compare(left, right) < 0;
    case '-le':
      return compare(left, right) <= 0;
    case '-like':
      return wildcardMatch(toText(left), toText(right));
    case '-notlike':
      return !wildcardMatch(toText(left), toText(right));
    case '-match':
      return new RegExp(toText(right), 'i').test(toText(left));
    case '-notmatch':
      return !new RegExp(toText(right), 'i').test(toText(left));
    case '-contains':
      return toItems(left).some((item) => looseEquals(item, right));
    case '-notcontains':
      return !toItems(left).some((item) => looseEquals(item, right));
    case '-in':
      return toItems(right).some((item) => looseEquals(item, left));
    case '-notin':
      return !toItems(right).some((item) => looseEquals(item, left));
    case '-xor':
      return isTruthy(left) !== isTruthy(right);
    case '-join':
      return toItems(left).map(toText).join(toText(right));
    case '+':
      if (Array.isArray(left)) return [...left, ...toItems(right)];
      if (typeof left === 'number') return left + Number(right);
      return toText(left) + toText(right);
    case '-':
      return Number(left) - Number(right);
    case '*':
      return Number(left) * Number(right);
    case '/':
      return Number(left) / Number(right);
    default:
      throw new PsScriptError(
        `The operator '${op}' is outside the simulated PowerShell subset.`,
        'NotSupportedBySimulator',
        'NotImplemented',
      );
  }
}
