// .NET regular expressions on JavaScript's engine, for -match, -replace, -split and switch -Regex: the common
// syntax is the same; what differs (inline options, \A \z, balancing groups) is refused, never guessed.
// Substitutions follow .NET's ($1, ${name}, $0, $$): learn.microsoft.com, "Substitutions in Regular Expressions".

import { PsTerminatingError } from './errors.js';
import { notModelled } from './syntax.js';

const DOTNET_ONLY: [RegExp, string][] = [
  [/\(\?[imnsx-]+[):]/, 'an inline regex option such as (?i)'],
  [/\(\?'/, "a (?'name') group"],
  [/\(\?<\w*-\w*>/, 'a balancing group'],
  [/\\[GZz]/, 'the anchors \\G, \\Z and \\z'],
  [/\[[^\]]*-\[/, 'character class subtraction'],
];

/** A .NET pattern as a JavaScript RegExp; PowerShell's operators ignore case unless told (-cmatch). */
export function dotnetRegex(pattern: string, caseSensitive: boolean, global = false): RegExp {
  const source = pattern.replace(/\\A/g, '^');
  for (const [sign, what] of DOTNET_ONLY) {
    if (sign.test(source.replace(/\\\\/g, ''))) throw notModelled(`${what} in the regex '${pattern}'`);
  }
  try {
    return new RegExp(source, `${caseSensitive ? '' : 'i'}${global ? 'g' : ''}`);
  } catch {
    throw new PsTerminatingError(
      `The regular expression pattern ${pattern} is not valid.`,
      'InvalidRegularExpression',
      `InvalidOperation: (${pattern}:String) [], RuntimeException`,
      undefined,
      'System.Management.Automation.RuntimeException',
    );
  }
}

/** Expands a .NET substitution string for one match. */
export function substitute(replacement: string, match: RegExpExecArray): string {
  return replacement.replace(/\$(\$|&|\d+|\{(\w+)\}|[`'+_])/g, (whole, token: string, braced: string | undefined) => {
    if (token === '$') return '$';
    if (token === '&') return match[0];
    if (token === '`' || token === "'" || token === '+' || token === '_') throw notModelled(`the substitution ${whole}`);
    const name = braced ?? token;
    if (/^\d+$/.test(name)) {
      const n = Number(name);
      return n < match.length ? (match[n] ?? '') : whole;
    }
    const named = match.groups?.[name];
    return named === undefined ? whole : named;
  });
}

/** `-replace`: every match replaced, with $1 and ${name} substitutions. */
export function regexReplace(input: string, pattern: string, replacement: string, caseSensitive: boolean): string {
  const re = dotnetRegex(pattern, caseSensitive, true);
  let out = '';
  let last = 0;
  for (let m = re.exec(input); m; m = re.exec(input)) {
    out += input.slice(last, m.index) + substitute(replacement, m);
    last = m.index + m[0].length;
    if (m[0].length === 0) re.lastIndex++;
  }
  return out + input.slice(last);
}

/**
 * `-split`: Regex.Split, captured groups included; a maximum of N substrings leaves the rest in the last one
 * (about_Split). An empty pattern is refused rather than guessed.
 */
export function regexSplit(input: string, pattern: string, max: number, caseSensitive: boolean): string[] {
  if (pattern === '') throw notModelled('-split with an empty delimiter');
  const re = dotnetRegex(pattern, caseSensitive, true);
  const out: string[] = [];
  let last = 0;
  for (let m = re.exec(input); m; m = re.exec(input)) {
    if (max > 0 && out.length === max - 1) break;
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    out.push(input.slice(last, m.index), ...m.slice(1).filter((g): g is string => g !== undefined));
    last = m.index + m[0].length;
  }
  out.push(input.slice(last));
  return out;
}
