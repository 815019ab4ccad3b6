// The commands a simulated Linux host has, over its in-memory file system and model. What is not here is
// "command not found" (exit 127), as on a host without that tool.

import { createHash } from 'node:crypto';
import { fail, ok } from '../command-result.js';
import type { BashShell, ShellFiles, Utility } from '../shells/bash/interpreter.js';
import { ipCommand } from './ip-routes.js';
import type { LinuxHost } from './linux-host.js';
import { docker, systemctl } from './linux-tools.js';
import { dirname } from './posix-fs.js';

/** Files the kernel serves rather than the disk. */
function special(host: LinuxHost, path: string): string | undefined {
  if (path === '/proc/sys/kernel/random/boot_id') return `${host.state.bootId}\n`;
  if (path === '/etc/hostname') return `${host.state.hostname}\n`;
  if (path === '/dev/null') return '';
  if (path.startsWith('/proc/sys/')) {
    const key = path.slice('/proc/sys/'.length).replace(/\//g, '.');
    return key in host.state.sysctls ? `${host.state.sysctls[key]}\n` : undefined;
  }
  return undefined;
}

export function hostFiles(host: LinuxHost): ShellFiles {
  return {
    read: (path) => special(host, path) ?? host.fs.read(path),
    isDir: (path) => host.fs.isDir(path),
    write(path, content, append) {
      if (path === '/dev/null') return undefined;
      if (path.startsWith('/proc/sys/')) {
        const key = path.slice('/proc/sys/'.length).replace(/\//g, '.');
        if (!(key in host.state.sysctls)) return 'No such file or directory';
        setSysctl(host, key, content.trim());
        return undefined;
      }
      if (host.fs.isDir(path)) return 'Is a directory';
      const next = append ? (host.fs.read(path) ?? '') + content : content;
      if (host.fs.read(path) === next) return undefined;
      if (!host.fs.write(path, next)) return 'No such file or directory';
      host.record(`write ${path}`);
      return undefined;
    },
  };
}

function setSysctl(host: LinuxHost, key: string, value: string): void {
  if (host.state.sysctls[key] !== value) host.record(`sysctl ${key}=${value}`);
  host.state.sysctls[key] = value;
}

function flags(args: string[], known: string): { flags: Set<string>; rest: string[] } {
  const set = new Set<string>();
  const rest: string[] = [];
  let done = false;
  for (const a of args) {
    if (!done && a === '--') done = true;
    else if (!done && /^-[A-Za-z]+$/.test(a) && [...a.slice(1)].every((c) => known.includes(c))) for (const c of a.slice(1)) set.add(c);
    else rest.push(a);
  }
  return { flags: set, rest };
}

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

export function linuxUtilities(host: LinuxHost): Map<string, Utility> {
  const files = hostFiles(host);
  const read = (shell: BashShell, path: string, stdin: string) =>
    path === '-' || path === '/dev/stdin' ? stdin : files.read(shell.resolve(path));
  const u = new Map<string, Utility>();

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

  const test: Utility = (args, _stdin, shell) => {
    const a = args.at(-1) === ']' ? args.slice(0, -1) : args;
    const path = (p: string) => shell.resolve(p);
    const truth = (x: boolean) => ({ stdout: '', stderr: '', exitCode: x ? 0 : 1 });
    if (a[0] === '!') return truth(test(a.slice(1), '', shell).exitCode !== 0);
    if (a.length === 1) return truth((a[0] ?? '') !== '');
    if (a.length === 2) {
      const [op, x = ''] = a;
      switch (op) {
        case '-e':
          return truth(files.read(path(x)) !== undefined || host.fs.isDir(path(x)));
        case '-f':
          return truth(files.read(path(x)) !== undefined);
        case '-d':
          return truth(host.fs.isDir(path(x)));
        case '-s':
          return truth((files.read(path(x)) ?? '').length > 0);
        case '-r':
        case '-w':
          return truth(files.read(path(x)) !== undefined || host.fs.isDir(path(x)));
        case '-x':
          return truth(((host.fs.mode(path(x)) ?? 0) & 0o111) !== 0);
        case '-z':
          return truth(x === '');
        case '-n':
          return truth(x !== '');
      }
      return fail(`bash: test: ${op}: unary operator expected\n`, 2);
    }
    const [x = '', op, y = ''] = a;
    const n = (v: string) => Number.parseInt(v, 10);
    switch (op) {
      case '=':
      case '==':
        return truth(x === y);
      case '!=':
        return truth(x !== y);
      case '-eq':
        return truth(n(x) === n(y));
      case '-ne':
        return truth(n(x) !== n(y));
      case '-lt':
        return truth(n(x) < n(y));
      case '-le':
        return truth(n(x) <= n(y));
      case '-gt':
        return truth(n(x) > n(y));
      case '-ge':
        return truth(n(x) >= n(y));
    }
    return fail(`bash: test: ${op}: binary operator expected\n`, 2);
  };
  u.set('test', test);
  u.set('[', (args, stdin, shell) => (args.at(-1) !== ']' ? fail("bash: [: missing `]'\n", 2) : test(args, stdin, shell)));

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

  u.set('hostname', () => ok(`${host.state.hostname}\n`));
  u.set('uname', (args) => ok(`${args.includes('-r') ? '5.10.0-28-amd64' : args.includes('-n') ? host.state.hostname : 'Linux'}\n`));
  u.set('id', (args) => ok(args.includes('-u') ? '0\n' : 'uid=0(root) gid=0(root) groups=0(root)\n'));
  u.set('date', (args) => ok(args[0] === '+%s' ? `${Math.floor(Date.now() / 1000)}\n` : `${new Date().toUTCString()}\n`));
  u.set('sleep', () => ok());

  u.set('sysctl', (args) => {
    const { flags: f, rest } = flags(args, 'nwqe');
    if (rest[0] === '--system') {
      for (const [k, v] of Object.entries(host.persistentSysctls())) if (k in host.state.sysctls) setSysctl(host, k, v);
      return ok();
    }
    let out = '';
    for (const item of rest) {
      const at = item.indexOf('=');
      const key = at >= 0 ? item.slice(0, at) : item;
      if (!(key in host.state.sysctls)) {
        if (f.has('e')) continue;
        return {
          stdout: out,
          stderr: `sysctl: cannot stat /proc/sys/${key.replace(/\./g, '/')}: No such file or directory\n`,
          exitCode: 255,
        };
      }
      if (at >= 0) {
        setSysctl(host, key, item.slice(at + 1));
        if (!f.has('q')) out += `${key} = ${item.slice(at + 1)}\n`;
      } else out += f.has('n') ? `${host.state.sysctls[key]}\n` : `${key} = ${host.state.sysctls[key]}\n`;
    }
    return ok(out);
  });

  u.set('ip', (args) => ipCommand(host, args));
  u.set('docker', (args, _stdin, shell) => docker(host, args, (path) => files.read(path), shell.cwd));
  u.set('systemctl', (args) => systemctl(host, args));
  u.set('curl', (args, stdin) => {
    let method = 'GET';
    let body = '';
    let output: string | undefined;
    let writeOut = '';
    let url: string | undefined;
    const headers: Record<string, string> = {};
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === '-X' || a === '--request') method = args[++i] ?? method;
      else if (a === '-H' || a === '--header') {
        const [k, ...v] = (args[++i] ?? '').split(':');
        headers[(k ?? '').trim().toLowerCase()] = v.join(':').trim();
      } else if (a === '--data-binary' || a === '-d' || a === '--data') {
        const value = args[++i] ?? '';
        body = value === '@-' ? stdin : value;
        if (method === 'GET') method = 'POST';
      } else if (a === '-o' || a === '--output') output = args[++i];
      else if (a === '-w' || a === '--write-out') writeOut = args[++i] ?? '';
      else if (a === '--max-time' || a === '-m') i++;
      else if (/^-[sSfL]+$/.test(a) || a === '--silent' || a === '--show-error' || a === '--fail') continue;
      else if (a.startsWith('-')) return fail(`curl: option ${a}: is unknown (groundcrew sim)\n`, 2);
      else url = a;
    }
    if (!url) return fail('curl: no URL specified!\n', 2);
    const outcome = host.network?.request(url, { method, headers, body });
    if (!outcome || 'error' in outcome) {
      const target = new URL(url);
      return fail(`curl: (7) Failed to connect to ${target.hostname} port ${target.port || 80}: Connection refused\n`, 7);
    }
    const shown = output === '/dev/null' ? '' : outcome.body;
    return ok(shown + writeOut.replace('%{http_code}', String(outcome.status)));
  });

  u.set('reboot', () => {
    host.rebootRequested = true;
    return ok();
  });
  return u;
}
