// File tools of a simulated Linux host: mkdir, rm, cp, mv, touch, chmod, install, stat, ls. Each change is journalled.

import { fail, ok } from '../command-result.js';
import type { ShellFiles, Utility } from '../shells/bash/bash-shell.js';
import { dirname } from '../shells/bash/posix-path.js';
import { inputReader } from './host-files.js';
import type { LinuxHost } from './linux-host.js';
import { flags } from './short-flags.js';

export function addFileUtilities(u: Map<string, Utility>, host: LinuxHost, files: ShellFiles): void {
  const read = inputReader(files);
  u.set('mkdir', (args, _stdin, shell) => {
    const { flags: f, rest } = flags(args, 'p');
    for (const d of rest) {
      const path = shell.resolve(d);
      const existed = host.fs.isDir(path);
      if (f.has('p')) {
        if (!host.fs.mkdirp(path)) return fail(`mkdir: cannot create directory '${d}': File exists\n`);
      } else {
        const r = host.fs.mkdir(path);
        if (r === 'exists') return fail(`mkdir: cannot create directory '${d}': File exists\n`);
        if (r === 'no-parent') return fail(`mkdir: cannot create directory '${d}': No such file or directory\n`);
      }
      if (!existed) host.record(`mkdir ${path}`);
    }
    return ok();
  });

  u.set('rm', (args, _stdin, shell) => {
    const { flags: f, rest } = flags(args, 'rfR');
    for (const p of rest) {
      const r = host.fs.remove(shell.resolve(p), f.has('r') || f.has('R'));
      if (r === 'missing' && !f.has('f')) return fail(`rm: cannot remove '${p}': No such file or directory\n`);
      if (r === 'is-dir') return fail(`rm: cannot remove '${p}': Is a directory\n`);
      if (r === 'ok') host.record(`rm ${shell.resolve(p)}`);
    }
    return ok();
  });

  const copy =
    (move: boolean): Utility =>
    (args, _stdin, shell) => {
      const { rest } = flags(args, 'fp');
      const [from, to] = rest;
      if (!from || !to) return fail(`${move ? 'mv' : 'cp'}: missing file operand\n`);
      const content = files.read(shell.resolve(from));
      if (content === undefined) return fail(`${move ? 'mv' : 'cp'}: cannot stat '${from}': No such file or directory\n`);
      const target = host.fs.isDir(shell.resolve(to)) ? `${shell.resolve(to)}/${from.split('/').pop()}` : shell.resolve(to);
      const problem = files.write(target, content, false);
      if (problem) return fail(`${move ? 'mv' : 'cp'}: cannot create regular file '${to}': ${problem}\n`);
      if (move) host.fs.remove(shell.resolve(from), false);
      return ok();
    };
  u.set('cp', copy(false));
  u.set('mv', copy(true));

  u.set('touch', (args, _stdin, shell) => {
    for (const p of args) {
      const path = shell.resolve(p);
      if (host.fs.read(path) === undefined && files.write(path, '', false))
        return fail(`touch: cannot touch '${p}': No such file or directory\n`);
    }
    return ok();
  });

  u.set('chmod', (args, _stdin, shell) => {
    const [mode, ...paths] = args;
    if (!mode || !/^[0-7]{3,4}$/.test(mode)) return fail(`groundcrew sim: chmod takes an octal mode here (got ${mode})\n`, 2);
    for (const p of paths) {
      const path = shell.resolve(p);
      if (host.fs.mode(path) !== Number.parseInt(mode, 8)) host.record(`chmod ${mode} ${path}`);
      if (!host.fs.chmod(path, Number.parseInt(mode, 8))) return fail(`chmod: cannot access '${p}': No such file or directory\n`);
    }
    return ok();
  });

  u.set('install', (args, stdin, shell) => {
    let mode = 0o755;
    let directory = false;
    let parents = false;
    const rest: string[] = [];
    for (let i = 0; i < args.length; i++) {
      if (args[i] === '-m') mode = Number.parseInt(args[++i] ?? '755', 8);
      else if (args[i] === '-d') directory = true;
      else if (args[i] === '-D') parents = true;
      else rest.push(args[i] as string);
    }
    if (directory) {
      for (const d of rest) {
        if (host.fs.isDir(shell.resolve(d))) continue;
        host.fs.mkdirp(shell.resolve(d));
        host.record(`mkdir ${shell.resolve(d)}`);
      }
      return ok();
    }
    const [from, to] = rest;
    if (!from || !to) return fail('install: missing destination file operand\n');
    const content = read(shell, from, stdin);
    if (content === undefined) return fail(`install: cannot stat '${from}': No such file or directory\n`);
    const target = shell.resolve(to);
    if (parents) host.fs.mkdirp(dirname(target));
    const problem = files.write(target, content, false);
    if (problem) return fail(`install: cannot create regular file '${to}': ${problem}\n`);
    if (host.fs.mode(target) !== mode) {
      host.fs.chmod(target, mode);
      host.record(`chmod ${mode.toString(8)} ${target}`);
    }
    return ok();
  });

  u.set('stat', (args, _stdin, shell) => {
    const format = args[args.indexOf('-c') + 1];
    const path = shell.resolve(args.at(-1) ?? '');
    const mode = host.fs.mode(path);
    if (mode === undefined && !host.fs.isDir(path)) return fail(`stat: cannot statx '${args.at(-1)}': No such file or directory\n`);
    if (format === '%a') return ok(`${(mode ?? 0o755).toString(8)}\n`);
    if (format === '%s') return ok(`${Buffer.byteLength(host.fs.read(path) ?? '')}\n`);
    return fail('groundcrew sim: stat supports -c %a and -c %s\n', 2);
  });

  u.set('ls', (args, _stdin, shell) => {
    const dir = shell.resolve(args.filter((a) => !a.startsWith('-'))[0] ?? shell.cwd);
    if (!host.fs.isDir(dir))
      return files.read(dir) !== undefined ? ok(`${dir}\n`) : fail(`ls: cannot access '${dir}': No such file or directory\n`, 2);
    return ok(
      host.fs
        .list(dir)
        .map((n) => `${n}\n`)
        .join(''),
    );
  });
}
