// test and [ on a simulated Linux host: file, string and integer tests (bash's [[ ]] uses the same).

import { fail } from '../command-result.js';
import type { ShellFiles, Utility } from '../shells/bash/bash-shell.js';
import type { LinuxHost } from './linux-host.js';

export function addTestUtility(u: Map<string, Utility>, host: LinuxHost, files: ShellFiles): void {
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
}
