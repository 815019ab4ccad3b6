// Text tools of a simulated Linux host: echo, printf, cat, grep, head, wc, tee, cmp, base64, sha256sum, and
// the awk and sed subsets (awk.ts, sed.ts).

import { createHash } from 'node:crypto';
import { fail, ok } from '../command-result.js';
import type { ShellFiles, Utility } from '../shells/bash/bash-shell.js';
import { awkUtility } from './awk.js';
import { inputReader } from './host-files.js';
import { sedUtility } from './sed.js';
import { flags } from './short-flags.js';

function printf(format: string, args: string[]): string {
  const unescapes = (s: string) =>
    s.replace(
      /\\([ntr\\"]|0[0-7]{0,3})/g,
      (_, c: string) => ({ n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"' })[c] ?? String.fromCharCode(Number.parseInt(c, 8)),
    );
  let out = '';
  let i = 0;
  do {
    out += unescapes(format).replace(/%([-0-9]*)([sdb%])/g, (_, width: string, conv: string) => {
      if (conv === '%') return '%';
      const arg = args[i++] ?? '';
      const text = conv === 'd' ? String(Number.parseInt(arg || '0', 10)) : conv === 'b' ? unescapes(arg) : arg;
      const w = Number(width.replace('-', '')) || 0;
      return width.startsWith('-') ? text.padEnd(w) : text.padStart(w);
    });
  } while (i < args.length && /%[sdb]/.test(format));
  return out;
}

export function addTextUtilities(u: Map<string, Utility>, files: ShellFiles): void {
  const read = inputReader(files);
  u.set('awk', awkUtility(read));
  u.set('sed', sedUtility(files, read));
  u.set('true', () => ok());
  u.set(':', () => ok());
  u.set('false', () => ({ stdout: '', stderr: '', exitCode: 1 }));
  u.set('echo', (args) => {
    const { flags: f, rest } = flags(args, 'ne');
    const text = rest.join(' ');
    return ok(`${f.has('e') ? printf(text.replace(/%/g, '%%'), []) : text}${f.has('n') ? '' : '\n'}`);
  });
  u.set('printf', (args) =>
    args[0] === undefined ? fail('printf: usage: printf format [arguments]\n', 2) : ok(printf(args[0], args.slice(1))),
  );

  u.set('cat', (args, stdin, shell) => {
    const paths = args.length === 0 ? ['-'] : args;
    let out = '';
    for (const p of paths) {
      const text = read(shell, p, stdin);
      if (text === undefined) return { stdout: out, stderr: `cat: ${p}: No such file or directory\n`, exitCode: 1 };
      out += text;
    }
    return ok(out);
  });

  u.set('sha256sum', (args, stdin, shell) => {
    const paths = args.length === 0 ? ['-'] : args;
    let out = '';
    for (const p of paths) {
      const text = read(shell, p, stdin);
      if (text === undefined) return { stdout: out, stderr: `sha256sum: ${p}: No such file or directory\n`, exitCode: 1 };
      out += `${createHash('sha256').update(text).digest('hex')}  ${p}\n`;
    }
    return ok(out);
  });

  u.set('base64', (args, stdin, shell) => {
    const { flags: f, rest } = flags(
      args.filter((a) => a !== '-w0'),
      'd',
    );
    const input = rest[0] ? read(shell, rest[0], stdin) : stdin;
    if (input === undefined) return fail(`base64: ${rest[0]}: No such file or directory\n`);
    if (f.has('d')) return ok(Buffer.from(input, 'base64').toString('utf8'));
    const encoded = Buffer.from(input, 'utf8').toString('base64');
    return ok(`${args.includes('-w0') ? encoded : (encoded.match(/.{1,76}/g) ?? ['']).join('\n')}${args.includes('-w0') ? '' : '\n'}`);
  });

  u.set('wc', (args, stdin, shell) => {
    const { flags: f, rest } = flags(args, 'lc');
    const text = rest[0] ? read(shell, rest[0], stdin) : stdin;
    if (text === undefined) return fail(`wc: ${rest[0]}: No such file or directory\n`);
    const n = f.has('c') ? Buffer.byteLength(text) : (text.match(/\n/g) ?? []).length;
    return ok(`${n}${rest[0] ? ` ${rest[0]}` : ''}\n`);
  });

  u.set('grep', (args, stdin, shell) => {
    const { flags: f, rest } = flags(args, 'qcxFEvi');
    const [pattern, file] = rest;
    if (pattern === undefined) return fail('Usage: grep [OPTION]... PATTERNS [FILE]...\n', 2);
    const text = file ? read(shell, file, stdin) : stdin;
    if (text === undefined) return fail(`grep: ${file}: No such file or directory\n`, 2);
    const source = f.has('F')
      ? pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      : f.has('E')
        ? pattern
        : pattern.replace(/\\([|+?(){}])/g, '$1');
    const re = new RegExp(f.has('x') ? `^(?:${source})$` : source, f.has('i') ? 'i' : '');
    const lines = text.split('\n').filter((l, i, all) => i < all.length - 1 || l !== '');
    const hits = lines.filter((l) => re.test(l) !== f.has('v'));
    const exitCode = hits.length > 0 ? 0 : 1;
    if (f.has('q')) return { stdout: '', stderr: '', exitCode };
    if (f.has('c')) return { stdout: `${hits.length}\n`, stderr: '', exitCode };
    return { stdout: hits.map((l) => `${l}\n`).join(''), stderr: '', exitCode };
  });

  u.set('head', (args, stdin, shell) => {
    const n = args.includes('-n') ? Number(args[args.indexOf('-n') + 1]) : 10;
    const file = args.filter((a, i) => a !== '-n' && args[i - 1] !== '-n')[0];
    const text = file ? read(shell, file, stdin) : stdin;
    if (text === undefined) return fail(`head: cannot open '${file}' for reading: No such file or directory\n`);
    return ok(
      text
        .split('\n')
        .slice(0, n)
        .map((l) => `${l}\n`)
        .join(''),
    );
  });

  u.set('tee', (args, stdin, shell) => {
    const { flags: f, rest } = flags(args, 'a');
    for (const p of rest) {
      const problem = files.write(shell.resolve(p), stdin, f.has('a'));
      if (problem) return { stdout: stdin, stderr: `tee: ${p}: ${problem}\n`, exitCode: 1 };
    }
    return ok(stdin);
  });

  u.set('cmp', (args, stdin, shell) => {
    const [a, b] = args.filter((x) => x !== '-s');
    const x = a ? read(shell, a, stdin) : undefined;
    const y = b ? read(shell, b, stdin) : undefined;
    if (x === undefined || y === undefined) return fail(`cmp: ${x === undefined ? a : b}: No such file or directory\n`, 2);
    return { stdout: '', stderr: '', exitCode: x === y ? 0 : 1 };
  });
}
