// Simple commands of the simulated bash: assignments, builtins, functions, the host's utilities, [ ] and [[ ]].

import { type CommandResult, ok } from '../../command-result.js';
import type { Node } from '../tree-sitter.js';
import type { ShellFiles, Utility } from './bash-shell.js';
import { BashExit, BashReturn, Unsupported } from './errors.js';
import { globSource } from './glob.js';
import { BashWords, type Io } from './words.js';

/** The interpreter's second layer: what one simple command does, once its words are expanded. */
/** Builtins of bash the simulator does not model: refused, not reported as missing commands. */
const UNMODELLED_BUILTINS = new Set([
  '.',
  'alias',
  'bind',
  'builtin',
  'caller',
  'compgen',
  'complete',
  'declare',
  'dirs',
  'disown',
  'enable',
  'eval',
  'exec',
  'fc',
  'getopts',
  'hash',
  'let',
  'mapfile',
  'popd',
  'pushd',
  'readarray',
  'shopt',
  'source',
  'trap',
  'type',
  'typeset',
  'ulimit',
  'umask',
  'wait',
]);

export abstract class BashCommands extends BashWords {
  protected pipefail = false;
  protected readonly functions = new Map<string, Node>();
  /** Per running function, the values its `local` names had outside it, to put back when it returns. */
  readonly #frames: Map<string, string | undefined>[] = [];

  protected abstract loopControl(kind: 'break' | 'continue', args: string[], io: Io): number;

  constructor(
    protected readonly utilities: ReadonlyMap<string, Utility>,
    protected readonly files: ShellFiles,
    env: Record<string, string> = {},
  ) {
    super(env);
  }

  protected assign(node: Node): void {
    const name = node.namedChild(0)?.text ?? '';
    const value = node.namedChild(1);
    this.env.set(name, value ? this.word(value) : '');
  }

  /** local, export, readonly and declare without options; arrays and attributes are outside the subset. */
  protected declaration(node: Node, io: Io): number {
    const keyword = node.child(0)?.text ?? '';
    if (keyword === 'declare' || keyword === 'typeset' || node.namedChildren.some((c) => c?.type === 'word' && c.text.startsWith('-')))
      throw new Unsupported(`${keyword} with options (${node.text.slice(0, 40)})`);
    const frame = this.#frames.at(-1);
    if (keyword === 'local' && !frame) {
      io.err.push(`bash: line ${this.line}: local: can only be used in a function\n`);
      return 1;
    }
    for (const child of node.namedChildren) {
      if (child?.type !== 'variable_assignment' && child?.type !== 'variable_name') continue;
      const name = child.type === 'variable_name' ? child.text : (child.namedChild(0)?.text ?? '');
      if (keyword === 'local' && frame && !frame.has(name)) frame.set(name, this.env.get(name));
      if (child.type === 'variable_assignment') this.assign(child);
      else if (keyword === 'local') this.env.delete(name);
    }
    return 0;
  }

  protected command(node: Node, given: Io): number {
    let io = given;
    // tree-sitter-bash keeps a here-string inside the command (`cat <<< "$x"`); other redirections wrap it.
    for (const r of node.childrenForFieldName('redirect')) {
      if (r?.type !== 'herestring_redirect') throw new Unsupported(`the redirection ${r?.text.slice(0, 40)} inside a command`);
      io = { stdin: `${this.word(r.namedChild(0) as Node)}\n`, out: given.out, err: given.err };
    }
    const assignments = node.namedChildren.filter((c): c is Node => c?.type === 'variable_assignment');
    const nameNode = node.childForFieldName('name');
    if (!nameNode) {
      for (const a of assignments) this.assign(a);
      return 0;
    }
    const argv = [nameNode, ...node.childrenForFieldName('argument')].filter((c): c is Node => c !== null).flatMap((c) => this.expand(c));
    const [name = '', ...args] = argv;
    // Assignments before a command last only for it (`IFS= read ...`), special builtins too: bash is not in
    // POSIX mode here (`X=1 :; echo $X` prints an empty line).
    const saved = assignments.map((a) => [a.namedChild(0)?.text ?? '', this.env.get(a.namedChild(0)?.text ?? '')] as const);
    for (const a of assignments) this.assign(a);
    let result: CommandResult;
    try {
      result = this.#invoke(name, args, io, node.startPosition.row + 1);
    } finally {
      for (const [key, value] of saved.reverse()) {
        if (value === undefined) this.env.delete(key);
        else this.env.set(key, value);
      }
    }
    if (result.stdout) io.out.push(result.stdout);
    if (result.stderr) io.err.push(result.stderr);
    return result.exitCode;
  }

  #invoke(name: string, args: string[], io: Io, line: number): CommandResult {
    switch (name) {
      case 'exit':
        throw new BashExit(args[0] === undefined ? this.status : Number(args[0]) & 255);
      case 'set':
        return this.#set(args);
      case 'cd': {
        const target = this.resolve(args[0] ?? this.env.get('HOME') ?? '/');
        if (!this.files.isDir(target)) return { stdout: '', stderr: `bash: cd: ${args[0]}: No such file or directory\n`, exitCode: 1 };
        this.cwd = target;
        return ok();
      }
      case 'export':
        for (const a of args) {
          const at = a.indexOf('=');
          if (at > 0) this.env.set(a.slice(0, at), a.slice(at + 1));
        }
        return ok();
      case 'shift':
        this.args = this.args.slice(Number(args[0] ?? 1));
        return ok();
      case 'command':
        if (args[0] === '-v' && args[1])
          return this.#lookup(args[1]) ? ok(`${this.#lookup(args[1])}\n`) : { stdout: '', stderr: '', exitCode: 1 };
        if (args[0]?.startsWith('-')) throw new Unsupported(`command ${args[0]}`);
        // `command X` runs X, never a function of that name.
        return this.#program(args[0] ?? '', args.slice(1), io, line);
      case 'return': {
        if (this.#frames.length === 0) {
          io.err.push(`bash: line ${line}: return: can only \`return' from a function or sourced script\n`);
          return { stdout: '', stderr: '', exitCode: 2 };
        }
        throw new BashReturn(args[0] === undefined ? this.status : Number(args[0]) & 255);
      }
      case 'break':
      case 'continue':
        return { stdout: '', stderr: '', exitCode: this.loopControl(name, args, io) };
      case 'read':
        return this.#read(args, io);
    }
    if (UNMODELLED_BUILTINS.has(name)) throw new Unsupported(`the builtin ${name}`);
    const fn = this.functions.get(name);
    if (fn) return { stdout: '', stderr: '', exitCode: this.#call(fn, args, io) };
    return this.#program(name, args, io, line);
  }

  #call(fn: Node, args: string[], io: Io): number {
    const saved = this.args;
    const frame = new Map<string, string | undefined>();
    this.args = args;
    this.#frames.push(frame);
    try {
      return this.block(fn.type === 'compound_statement' ? fn.namedChildren : [fn], { stdin: io.stdin, out: io.out, err: io.err });
    } catch (err) {
      if (err instanceof BashReturn) return err.code;
      throw err;
    } finally {
      this.args = saved;
      this.#frames.pop();
      for (const [name, value] of frame) {
        if (value === undefined) this.env.delete(name);
        else this.env.set(name, value);
      }
    }
  }

  /**
   * read [-r] [-d DELIM] [name...]: up to DELIM (a newline; `-d ''` is NUL) of standard input, split on IFS
   * whitespace, the last name taking the rest; status 0 when DELIM was met, 1 at end of input. IFS is the
   * default or empty (`IFS= read`: nothing split or trimmed); bash variables cannot hold NUL, so it is dropped.
   */
  #read(args: string[], io: Io): CommandResult {
    let raw = false;
    let delim = '\n';
    const names: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === '-r') raw = true;
      else if (a === '-d' && i + 1 < args.length) delim = (args[++i] as string).slice(0, 1) || '\0';
      else if (a.startsWith('-')) throw new Unsupported(`read ${args.join(' ')}`);
      else names.push(a);
    }
    if (delim !== '\n' && !raw) throw new Unsupported('read -d without -r');
    const ifs = this.env.get('IFS');
    if (ifs !== undefined && ifs !== '' && ifs !== ' \t\n') throw new Unsupported(`read with IFS=${JSON.stringify(ifs)}`);
    if (io.stdin === '') {
      for (const n of names.length > 0 ? names : ['REPLY']) this.env.set(n, '');
      return { stdout: '', stderr: '', exitCode: 1 };
    }
    const end = io.stdin.indexOf(delim);
    let line = (end < 0 ? io.stdin : io.stdin.slice(0, end)).replaceAll('\0', '');
    io.stdin = end < 0 ? '' : io.stdin.slice(end + 1);
    if (!raw) line = line.replace(/\\(.)/g, '$1');
    const targets = names.length > 0 ? names : ['REPLY'];
    const space = ifs === '' ? '' : ' \t\n';
    const lead = space ? new RegExp(`^[${space}]+`) : /^(?!)/;
    let rest = names.length > 0 ? line.replace(lead, '') : line;
    targets.forEach((name, i) => {
      if (i === targets.length - 1) {
        this.env.set(name, names.length > 0 && space ? rest.replace(new RegExp(`[${space}]+$`), '') : rest);
        return;
      }
      if (!space) {
        this.env.set(name, rest);
        rest = '';
        return;
      }
      const m = /^(\S*)[ \t\n]*/.exec(rest);
      this.env.set(name, m?.[1] ?? '');
      rest = rest.slice(m?.[0].length ?? 0);
    });
    // A last line without its delimiter is read, but read says end of file.
    return { stdout: '', stderr: '', exitCode: end < 0 ? 1 : 0 };
  }

  #program(name: string, args: string[], io: Io, line: number): CommandResult {
    const utility = this.utilities.get(name.replace(/^\/(usr\/)?(s?bin)\//, ''));
    if (utility) return utility(args, io.stdin, this);
    return { stdout: '', stderr: `bash: line ${line}: ${name}: command not found\n`, exitCode: 127 };
  }

  #lookup(name: string): string | undefined {
    if (this.functions.has(name)) return name;
    return this.utilities.has(name) ? `/usr/bin/${name}` : undefined;
  }

  #set(args: string[]): CommandResult {
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === '-o' || a === '+o') {
        if (args[++i] === 'pipefail') this.pipefail = a === '-o';
        else if (args[i] === 'errexit') this.errexit = a === '-o';
        else if (args[i] === 'nounset') this.nounset = a === '-o';
        else throw new Unsupported(`set ${a} ${args[i] ?? ''}`);
        continue;
      }
      const on = a.startsWith('-');
      for (const flag of a.slice(1)) {
        if (flag === 'e') this.errexit = on;
        else if (flag === 'u') this.nounset = on;
        else if (flag === 'x' || flag === 'f') continue;
        else return { stdout: '', stderr: `bash: set: ${a[0]}${flag}: invalid option\n`, exitCode: 2 };
      }
    }
    return ok();
  }

  // ---- [ ] and [[ ]] ----

  protected test(node: Node): boolean {
    const inner = node.namedChildren.find((c) => c !== null);
    return inner ? this.#testExpr(inner, node.text.startsWith('[[')) : false;
  }

  /** The test utility's verdict; an operator it does not know is refused, not read as false. */
  #runTest(argv: string[]): boolean {
    const result = this.utilities.get('test')?.(argv, '', this);
    if (!result || result.exitCode > 1) throw new Unsupported(`the test ${argv.join(' ')} (${result?.stderr.trim() ?? 'no test'})`);
    return result.exitCode === 0;
  }

  #testExpr(node: Node, double = false): boolean {
    switch (node.type) {
      case 'unary_expression': {
        const op = node.child(0)?.text ?? '';
        if (op === '!') return !this.#testExpr(node.child(1) as Node, double);
        const operand = this.expand(node.child(1) as Node).join(' ');
        return this.#runTest([op, operand]);
      }
      case 'binary_expression': {
        const op = node.child(1)?.text ?? '';
        if (op === '&&' || op === '-a')
          return this.#testExpr(node.child(0) as Node, double) && this.#testExpr(node.child(2) as Node, double);
        if (op === '||' || op === '-o')
          return this.#testExpr(node.child(0) as Node, double) || this.#testExpr(node.child(2) as Node, double);
        const left = this.expand(node.child(0) as Node).join(' ');
        const rightNode = node.child(2) as Node;
        // In [[ ]], an unquoted right side of == and != is a pattern, and =~ an extended regex (bash manual).
        if (double && (op === '==' || op === '!=' || op === '=') && /[*?[]/.test(rightNode.text) && !/^['"]/.test(rightNode.text))
          return new RegExp(`^(?:${globSource(rightNode.text)})$`).test(left) === (op !== '!=');
        if (double && op === '=~') {
          if (/^['"]/.test(rightNode.text)) throw new Unsupported(`a quoted regex after =~ (${rightNode.text})`);
          return new RegExp(rightNode.text).test(left);
        }
        const right = this.expand(rightNode).join(' ');
        return this.#runTest([left, op === '==' ? '=' : op, right]);
      }
      case 'parenthesized_expression':
        return this.#testExpr(node.namedChild(0) as Node, double);
      case 'negated_expression':
        return !this.#testExpr(node.namedChild(0) as Node, double);
      default:
        return this.expand(node).join(' ') !== '';
    }
  }
}
