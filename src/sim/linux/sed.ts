// sed on a simulated Linux host, the subset scripts of this kind use (GNU sed manual): -n, -E/-r, -e, -i;
// one address (N, $, /re/) or none; the commands s (flags g, p, I), d and p. Anything else is refused
// with status 2 rather than guessed.

import { type CommandResult, fail, ok } from '../command-result.js';
import type { ShellFiles, Utility } from '../shells/bash/bash-shell.js';

type Address = { kind: 'all' } | { kind: 'line'; n: number } | { kind: 'last' } | { kind: 're'; re: RegExp };
interface SedCommand {
  address: Address;
  name: 's' | 'd' | 'p';
  re?: RegExp;
  replacement?: string;
  print?: boolean;
  /** s/a/b/2: only the Nth match. */
  occurrence?: number;
}

class Refused extends Error {}

/** A basic (BRE) or extended regex as JavaScript: in a BRE, \( \) \{ \} \+ \? \| are the operators. */
function toRegExp(source: string, extended: boolean, flags: string): RegExp {
  const js = extended
    ? source
    : source.replace(/\\([(){}+?|])|([(){}+?|])/g, (_, escaped: string | undefined, plain: string | undefined) => escaped ?? `\\${plain}`);
  try {
    return new RegExp(js, flags);
  } catch {
    throw new Refused(`-e expression #1, char 0: invalid regular expression ${source}`);
  }
}

/** Splits `s/a/b/g` at its delimiter, honouring backslash escapes of it. */
function delimited(text: string, from: number, delimiter: string): { part: string; end: number } {
  let part = '';
  for (let i = from; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '\\' && text[i + 1] === delimiter) {
      part += delimiter;
      i++;
    } else if (ch === '\\' && i + 1 < text.length) {
      part += ch + (text[++i] as string);
    } else if (ch === delimiter) return { part, end: i };
    else part += ch;
  }
  throw new Refused(`unterminated \`s' command`);
}

function parse(script: string, extended: boolean): SedCommand[] {
  const commands: SedCommand[] = [];
  let i = 0;
  const skip = () => {
    while (i < script.length && /[\s;]/.test(script[i] as string)) i++;
  };
  for (skip(); i < script.length; skip()) {
    let address: Address = { kind: 'all' };
    const line = /^\d+/.exec(script.slice(i));
    if (line) {
      address = { kind: 'line', n: Number(line[0]) };
      i += line[0].length;
    } else if (script[i] === '$') {
      address = { kind: 'last' };
      i++;
    } else if (script[i] === '/') {
      const { part, end } = delimited(script, i + 1, '/');
      address = { kind: 're', re: toRegExp(part, extended, '') };
      i = end + 1;
    }
    if (script[i] === ',' || script[i] === '!') throw new Refused(`address ranges and negation (${script.slice(i, i + 10)})`);
    const name = script[i++];
    if (name === 'd' || name === 'p') commands.push({ address, name });
    else if (name === 's') {
      const delimiter = script[i] ?? '/';
      const pattern = delimited(script, i + 1, delimiter);
      const replacement = delimited(script, pattern.end + 1, delimiter);
      i = replacement.end + 1;
      const flags = /^[gpI0-9]*/.exec(script.slice(i))?.[0] ?? '';
      const occurrence = /\d+/.exec(flags)?.[0];
      i += flags.length;
      if (i < script.length && !/[\s;}]/.test(script[i] as string)) throw new Refused(`the s flag ${script[i]}`);
      commands.push({
        address,
        name: 's',
        re: toRegExp(pattern.part, extended, `${flags.includes('g') || occurrence ? 'g' : ''}${flags.includes('I') ? 'i' : ''}`),
        occurrence: occurrence ? Number(occurrence) : undefined,
        replacement: replacement.part,
        print: flags.includes('p'),
      });
    } else throw new Refused(`the command ${name ?? '(none)'}`);
  }
  return commands;
}

/** The replacement text of `s`: & is the match, \1-\9 its groups, \n a newline. */
function replace(re: RegExp, line: string, replacement: string, occurrence?: number): string {
  let seen = 0;
  return line.replace(re, (...m: unknown[]) => {
    const groups = m.slice(0, -2) as (string | undefined)[];
    // With a number N (and no g), only the Nth match is replaced.
    if (occurrence !== undefined && ++seen !== occurrence) return groups[0] ?? '';
    return replacement.replace(/\\([0-9n&\\])|&/g, (_whole, escaped: string | undefined) => {
      if (escaped === undefined) return groups[0] ?? '';
      if (escaped === 'n') return '\n';
      if (escaped === '&' || escaped === '\\') return escaped;
      return groups[Number(escaped)] ?? '';
    });
  });
}

function run(commands: SedCommand[], text: string, quiet: boolean): string {
  const endsWithNewline = text.endsWith('\n');
  const lines = text === '' ? [] : (endsWithNewline ? text.slice(0, -1) : text).split('\n');
  let out = '';
  lines.forEach((original, index) => {
    let line = original;
    let deleted = false;
    const at = (a: Address) =>
      a.kind === 'all' ||
      (a.kind === 'line' && a.n === index + 1) ||
      (a.kind === 'last' && index === lines.length - 1) ||
      (a.kind === 're' && a.re.test(line));
    for (const c of commands) {
      if (!at(c.address)) continue;
      if (c.name === 'd') {
        deleted = true;
        break;
      }
      if (c.name === 'p') out += `${line}\n`;
      if (c.name === 's' && c.re) {
        c.re.lastIndex = 0;
        if (!c.re.test(line)) continue;
        c.re.lastIndex = 0;
        line = replace(c.re, line, c.replacement ?? '', c.occurrence);
        if (c.print) out += `${line}\n`;
      }
    }
    if (!deleted && !quiet) out += index === lines.length - 1 && !endsWithNewline ? line : `${line}\n`;
  });
  return out;
}

export function sedUtility(
  files: ShellFiles,
  read: (shell: Parameters<Utility>[2], path: string, stdin: string) => string | undefined,
): Utility {
  return (args, stdin, shell): CommandResult => {
    const scripts: string[] = [];
    const operands: string[] = [];
    let quiet = false;
    let extended = false;
    let inPlace = false;
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === '-n') quiet = true;
      else if (a === '-E' || a === '-r') extended = true;
      else if (a === '-i') inPlace = true;
      else if (a === '-e') scripts.push(args[++i] ?? '');
      else if (a.startsWith('-') && a !== '-') return fail(`sed: groundcrew sim: the option ${a} is outside the simulated subset\n`, 2);
      else operands.push(a);
    }
    if (scripts.length === 0) {
      const first = operands.shift();
      if (first === undefined) return fail('Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n', 1);
      scripts.push(first);
    }
    let commands: SedCommand[];
    try {
      commands = parse(scripts.join('\n'), extended);
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      return fail(`sed: groundcrew sim: ${err.message} is outside the simulated subset\n`, 2);
    }
    if (inPlace) {
      for (const path of operands) {
        const text = files.read(shell.resolve(path));
        if (text === undefined) return fail(`sed: can't read ${path}: No such file or directory\n`, 2);
        const problem = files.write(shell.resolve(path), run(commands, text, quiet), false);
        if (problem) return fail(`sed: couldn't open temporary file ${path}: ${problem}\n`, 4);
      }
      return ok();
    }
    let text = '';
    for (const path of operands.length > 0 ? operands : ['-']) {
      const content = read(shell, path, stdin);
      if (content === undefined) return fail(`sed: can't read ${path}: No such file or directory\n`, 2);
      text += content;
    }
    return ok(run(commands, text, quiet));
  };
}
