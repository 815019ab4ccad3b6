// A small bash over tree-sitter-bash trees: the subset documented in docs/simulator.md, run against a
// simulated Linux host. Anything outside it fails loudly instead of being skipped.

import { type CommandResult, ok } from '../../command-result.js';
import { normalize } from '../../linux/posix-fs.js';
import type { Node, Tree } from '../tree-sitter.js';

/** A command the simulated host can run: a builtin or a utility of its file system. */
export type Utility = (argv: string[], stdin: string, shell: BashShell) => CommandResult;

/** What redirections and cd need from the host's file system; write returns an error text or undefined. */
export interface ShellFiles {
  read(path: string): string | undefined;
  write(path: string, content: string, append: boolean): string | undefined;
  isDir(path: string): boolean;
}

export interface BashShell {
  cwd: string;
  env: Map<string, string>;
  /** Absolute path of `path` against the working directory. */
  resolve(path: string): string;
}

class BashExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

class Unsupported extends Error {}

interface Io {
  stdin: string;
  out: string[];
  err: string[];
}

export class BashInterpreter implements BashShell {
  cwd = '/root';
  readonly env = new Map<string, string>();
  #status = 0;
  #errexit = false;
  #nounset = false;
  #pipefail = false;
  /** Inside an if/while condition, or left of && / ||, or after !: errexit does not fire there. */
  #conditional = 0;
  readonly #functions = new Map<string, Node>();
  #args: string[] = [];
  /** The script's standard input: a command substitution reads it too (x=$(cat)). */
  #stdin = '';
  /** Status of the last command substitution, which an assignment passes on as its own. */
  #substitutionStatus = 0;
  /** Line of the statement being run, for bash's "line N:" in messages. */
  #line = 1;

  constructor(
    private readonly utilities: ReadonlyMap<string, Utility>,
    private readonly files: ShellFiles,
    env: Record<string, string> = {},
  ) {
    for (const [k, v] of Object.entries({
      HOME: '/root',
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      USER: 'root',
      SHELL: '/bin/bash',
      ...env,
    }))
      this.env.set(k, v);
  }

  resolve(path: string): string {
    return normalize(path, this.cwd);
  }

  run(tree: Tree, stdin: string): CommandResult {
    this.#stdin = stdin;
    const io: Io = { stdin, out: [], err: [] };
    let code: number;
    try {
      this.#block(tree.rootNode.namedChildren, io);
      code = this.#status;
    } catch (err) {
      if (err instanceof BashUnbound) io.err.push(err.text);
      if (err instanceof BashExit) code = err.code;
      else if (err instanceof Unsupported) {
        io.err.push(`bash: groundcrew sim: ${err.message} is outside the simulated subset (docs/simulator.md)\n`);
        code = 2;
      } else throw err;
    }
    return { stdout: io.out.join(''), stderr: io.err.join(''), exitCode: code };
  }

  // ---- statements ----

  #block(nodes: (Node | null)[], io: Io): number {
    for (const node of nodes) if (node?.isNamed && node.type !== 'comment') this.#statement(node, io);
    return this.#status;
  }

  #statement(node: Node, io: Io): number {
    this.#line = node.startPosition.row + 1;
    const status = this.#dispatch(node, io);
    this.#status = status;
    if (
      status !== 0 &&
      this.#errexit &&
      this.#conditional === 0 &&
      !['if_statement', 'for_statement', 'while_statement', 'list', 'negated_command'].includes(node.type)
    ) {
      throw new BashExit(status);
    }
    return status;
  }

  #dispatch(node: Node, io: Io): number {
    switch (node.type) {
      case 'command':
        return this.#command(node, io);
      case 'variable_assignment':
        // x=$(cmd) leaves cmd's status in $?; a plain assignment leaves 0.
        this.#substitutionStatus = 0;
        this.#assign(node);
        return this.#substitutionStatus;
      case 'declaration_command':
        return this.#declaration(node);
      case 'unset_command':
        for (const n of node.namedChildren.slice(1)) if (n) this.env.delete(n.text);
        return 0;
      case 'list':
        return this.#list(node, io);
      case 'pipeline':
        return this.#pipeline(node, io);
      case 'redirected_statement':
        return this.#redirected(node, io);
      case 'if_statement':
        return this.#if(node, io);
      case 'for_statement':
        return this.#for(node, io);
      case 'compound_statement':
        return this.#block(node.namedChildren, io);
      case 'subshell':
        return this.#subshell(node, io);
      case 'negated_command': {
        this.#conditional++;
        try {
          return this.#dispatch(node.namedChild(0) as Node, io) === 0 ? 1 : 0;
        } finally {
          this.#conditional--;
        }
      }
      case 'test_command':
        return this.#test(node) ? 0 : 1;
      case 'function_definition': {
        const name = node.childForFieldName('name')?.text ?? node.namedChild(0)?.text ?? '';
        this.#functions.set(name, node.childForFieldName('body') ?? (node.namedChild(1) as Node));
        return 0;
      }
      case 'comment':
        return this.#status;
      default:
        throw new Unsupported(`${node.type} (${node.text.slice(0, 40)})`);
    }
  }

  /** Runs the left side of `a && b` or `a || b` as a condition, and says whether the right side runs. */
  #leftOfList(list: Node, io: Io): { status: number; right: Node; proceed: boolean } {
    const [left, op, right] = [list.child(0) as Node, list.child(1)?.text, list.child(2) as Node];
    this.#conditional++;
    let status: number;
    try {
      status = this.#dispatch(left, io);
    } finally {
      this.#conditional--;
    }
    this.#status = status;
    return { status, right, proceed: (op === '&&' && status === 0) || (op === '||' && status !== 0) };
  }

  #list(node: Node, io: Io): number {
    const { status, right, proceed } = this.#leftOfList(node, io);
    return proceed ? this.#statement(right, io) : status;
  }

  #pipeline(node: Node, io: Io): number {
    const stages = node.namedChildren.filter((c): c is Node => c !== null);
    let input = io.stdin;
    const statuses: number[] = [];
    stages.forEach((stage, i) => {
      const last = i === stages.length - 1;
      const stageIo: Io = { stdin: input, out: last ? io.out : [], err: io.err };
      this.#conditional++;
      try {
        statuses.push(this.#dispatch(stage, stageIo));
      } catch (err) {
        if (!(err instanceof BashExit)) throw err;
        statuses.push(err.code);
      } finally {
        this.#conditional--;
      }
      input = stageIo.out.join('');
    });
    return this.#pipefail ? (statuses.filter((s) => s !== 0).at(-1) ?? 0) : (statuses.at(-1) ?? 0);
  }

  #subshell(node: Node, io: Io): number {
    const saved = { cwd: this.cwd, env: new Map(this.env) };
    try {
      return this.#block(node.namedChildren, io);
    } catch (err) {
      if (err instanceof BashExit) return err.code;
      throw err;
    } finally {
      this.cwd = saved.cwd;
      this.env.clear();
      for (const [k, v] of saved.env) this.env.set(k, v);
    }
  }

  #if(node: Node, io: Io): number {
    const children = node.children.filter((c): c is Node => c !== null);
    let i = 1;
    const until = (words: string[]) => {
      const part: Node[] = [];
      while (i < children.length && !words.includes((children[i] as Node).type)) part.push(children[i++] as Node);
      return part;
    };
    const condition = until(['then']);
    i++;
    const body = until(['elif_clause', 'else_clause', 'fi']);
    if (this.#condition(condition, io) === 0) return this.#block(body, io);
    for (; i < children.length; i++) {
      const clause = children[i] as Node;
      if (clause.type === 'elif_clause') {
        const parts = clause.children.filter((c): c is Node => c !== null);
        const thenAt = parts.findIndex((p) => p.type === 'then');
        if (this.#condition(parts.slice(1, thenAt), io) === 0) return this.#block(parts.slice(thenAt + 1), io);
      } else if (clause.type === 'else_clause') {
        return this.#block(clause.children.slice(1), io);
      }
    }
    return 0;
  }

  #condition(nodes: Node[], io: Io): number {
    this.#conditional++;
    try {
      let status = 0;
      for (const n of nodes) if (n.isNamed && n.type !== 'comment') status = this.#dispatch(n, io);
      return status;
    } finally {
      this.#conditional--;
    }
  }

  #for(node: Node, io: Io): number {
    const variable = node.childForFieldName('variable')?.text ?? '';
    const body = node.childForFieldName('body');
    const values = node
      .childrenForFieldName('value')
      .filter((c): c is Node => c !== null)
      .flatMap((v) => this.#expand(v));
    let status = 0;
    for (const value of values) {
      this.env.set(variable, value);
      status = body ? this.#block(body.namedChildren, io) : 0;
    }
    return status;
  }

  #redirected(node: Node, io: Io): number {
    const body = node.childForFieldName('body') ?? (node.namedChild(0) as Node);
    const redirects = node.namedChildren.filter((c): c is Node => c !== null && c.id !== body.id);
    // tree-sitter-bash attaches `a && b > f` redirects to the whole list; bash applies them to the last command.
    if (body.type === 'list') {
      const { status, right, proceed } = this.#leftOfList(body, io);
      return proceed ? this.#withRedirects(right, redirects, io) : status;
    }
    return this.#withRedirects(body, redirects, io);
  }

  #withRedirects(body: Node, redirects: Node[], io: Io): number {
    const inner: Io = { stdin: io.stdin, out: [], err: [] };
    const targets: { fd: number; path?: string; append: boolean; dup?: number }[] = [];
    for (const r of redirects) {
      if (r.type === 'heredoc_redirect') {
        const raw = r.namedChildren.find((c) => c?.type === 'heredoc_body')?.text ?? '';
        const quoted = /^['"]/.test(r.namedChildren.find((c) => c?.type === 'heredoc_start')?.text ?? '');
        inner.stdin = quoted ? raw : this.#interpolate(raw);
      } else if (r.type === 'herestring_redirect') {
        inner.stdin = `${this.#expand(r.namedChild(0) as Node).join(' ')}\n`;
      } else if (r.type === 'file_redirect') {
        const fdNode = r.namedChildren.find((c) => c?.type === 'file_descriptor');
        const op = r.children.find((c) => c && !c.isNamed)?.text ?? '>';
        const dest = r.namedChildren.filter((c) => c?.type !== 'file_descriptor').at(-1) as Node;
        const target = this.#expand(dest).join(' ');
        if (op === '<') {
          const content = this.files.read(this.resolve(target));
          if (content === undefined) {
            io.err.push(`bash: ${target}: No such file or directory\n`);
            return 1;
          }
          inner.stdin = content;
        } else if (op === '>&' || op === '<&') targets.push({ fd: Number(fdNode?.text ?? 1), append: false, dup: Number(target) });
        else if (op === '&>' || op === '&>>') targets.push({ fd: 1, path: target, append: op === '&>>' }, { fd: 2, dup: 1, append: false });
        else targets.push({ fd: Number(fdNode?.text ?? 1), path: target, append: op === '>>' });
      } else throw new Unsupported(`${r.type} (${r.text.slice(0, 40)})`);
    }
    const status = this.#dispatch(body, inner);
    const streams: Record<number, string> = { 1: inner.out.join(''), 2: inner.err.join('') };
    const sinks: Record<number, { path?: string; append: boolean } | 'out' | 'err'> = { 1: 'out', 2: 'err' };
    for (const t of targets) sinks[t.fd] = t.dup !== undefined ? (sinks[t.dup] ?? 'out') : { path: t.path, append: t.append };
    for (const fd of [1, 2]) {
      const sink = sinks[fd];
      const text = streams[fd] ?? '';
      if (sink === 'out') io.out.push(text);
      else if (sink === 'err') io.err.push(text);
      else if (sink?.path && sink.path !== '/dev/null') {
        const problem = this.files.write(this.resolve(sink.path), text, sink.append || (fd === 2 && sinks[1] === sink));
        if (problem) {
          io.err.push(`bash: ${sink.path}: ${problem}\n`);
          return 1;
        }
      }
    }
    return status;
  }

  // ---- commands ----

  #assign(node: Node): void {
    const name = node.namedChild(0)?.text ?? '';
    const value = node.namedChild(1);
    this.env.set(name, value ? this.#word(value) : '');
  }

  #declaration(node: Node): number {
    for (const child of node.namedChildren) {
      if (child?.type === 'variable_assignment') this.#assign(child);
    }
    return 0;
  }

  #command(node: Node, io: Io): number {
    const assignments = node.namedChildren.filter((c): c is Node => c?.type === 'variable_assignment');
    const nameNode = node.childForFieldName('name');
    if (!nameNode) {
      for (const a of assignments) this.#assign(a);
      return 0;
    }
    const argv = [nameNode, ...node.childrenForFieldName('argument')].filter((c): c is Node => c !== null).flatMap((c) => this.#expand(c));
    const [name = '', ...args] = argv;
    for (const a of assignments) this.#assign(a);
    const result = this.#invoke(name, args, io, node.startPosition.row + 1);
    if (result.stdout) io.out.push(result.stdout);
    if (result.stderr) io.err.push(result.stderr);
    return result.exitCode;
  }

  #invoke(name: string, args: string[], io: Io, line: number): CommandResult {
    switch (name) {
      case 'exit':
        throw new BashExit(args[0] === undefined ? this.#status : Number(args[0]) & 255);
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
        this.#args = this.#args.slice(Number(args[0] ?? 1));
        return ok();
      case 'command':
      case 'type':
        if (args[0] === '-v' && args[1])
          return this.#lookup(args[1]) ? ok(`${this.#lookup(args[1])}\n`) : { stdout: '', stderr: '', exitCode: 1 };
        break;
    }
    const fn = this.#functions.get(name);
    if (fn) {
      const saved = this.#args;
      this.#args = args;
      try {
        const inner: Io = { stdin: io.stdin, out: io.out, err: io.err };
        return { stdout: '', stderr: '', exitCode: this.#block(fn.type === 'compound_statement' ? fn.namedChildren : [fn], inner) };
      } finally {
        this.#args = saved;
      }
    }
    const utility = this.utilities.get(name.replace(/^\/(usr\/)?(s?bin)\//, ''));
    if (utility) return utility(args, io.stdin, this);
    return { stdout: '', stderr: `bash: line ${line}: ${name}: command not found\n`, exitCode: 127 };
  }

  #lookup(name: string): string | undefined {
    if (this.#functions.has(name)) return name;
    return this.utilities.has(name) ? `/usr/bin/${name}` : undefined;
  }

  #set(args: string[]): CommandResult {
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as string;
      if (a === '-o' || a === '+o') {
        if (args[++i] === 'pipefail') this.#pipefail = a === '-o';
        else if (args[i] === 'errexit') this.#errexit = a === '-o';
        else if (args[i] === 'nounset') this.#nounset = a === '-o';
        continue;
      }
      const on = a.startsWith('-');
      for (const flag of a.slice(1)) {
        if (flag === 'e') this.#errexit = on;
        else if (flag === 'u') this.#nounset = on;
        else if (flag === 'x' || flag === 'f') continue;
        else return { stdout: '', stderr: `bash: set: ${a[0]}${flag}: invalid option\n`, exitCode: 2 };
      }
    }
    return ok();
  }

  // ---- [ ] and [[ ]] ----

  #test(node: Node): boolean {
    const inner = node.namedChildren.find((c) => c !== null);
    return inner ? this.#testExpr(inner) : false;
  }

  #testExpr(node: Node): boolean {
    switch (node.type) {
      case 'unary_expression': {
        const op = node.child(0)?.text ?? '';
        if (op === '!') return !this.#testExpr(node.child(1) as Node);
        const operand = this.#expand(node.child(1) as Node).join(' ');
        const result = this.utilities.get('test')?.([op, operand], '', this);
        return result?.exitCode === 0;
      }
      case 'binary_expression': {
        const op = node.child(1)?.text ?? '';
        if (op === '&&' || op === '-a') return this.#testExpr(node.child(0) as Node) && this.#testExpr(node.child(2) as Node);
        if (op === '||' || op === '-o') return this.#testExpr(node.child(0) as Node) || this.#testExpr(node.child(2) as Node);
        const left = this.#expand(node.child(0) as Node).join(' ');
        const right = this.#expand(node.child(2) as Node).join(' ');
        return this.utilities.get('test')?.([left, op === '==' ? '=' : op, right], '', this).exitCode === 0;
      }
      case 'parenthesized_expression':
        return this.#testExpr(node.namedChild(0) as Node);
      case 'negated_expression':
        return !this.#testExpr(node.namedChild(0) as Node);
      default:
        return this.#expand(node).join(' ') !== '';
    }
  }

  // ---- words ----

  /** Expands one argument node to its fields (unquoted expansions split on whitespace, as with default IFS). */
  #expand(node: Node): string[] {
    switch (node.type) {
      case 'word':
      case 'command_name':
        if (node.type === 'command_name') return this.#expand(node.namedChild(0) as Node);
        if (/(^|[^\\])[*?]/.test(node.text) || /^\[.*\]$/.test(node.text)) throw new Unsupported(`globbing (${node.text})`);
        return [node.text.replace(/^~(?=\/|$)/, this.env.get('HOME') ?? '/root').replace(/\\(.)/g, '$1')];
      case 'number':
      case 'extglob_pattern':
        // In [ a != b ] the grammar calls b a pattern; bash compares it as a word there.
        return [node.text];
      case 'raw_string':
        return [node.text.slice(1, -1)];
      case 'ansi_c_string':
        return [unescapeAnsi(node.text.slice(2, -1))];
      case 'string': {
        const only = node.namedChildren.length === 1 ? node.namedChildren[0] : undefined;
        if (only?.type === 'simple_expansion' && (only.text === '$@' || only.text === '${@}')) return [...this.#args];
        return [this.#string(node)];
      }
      case 'concatenation':
        return [node.namedChildren.map((c) => (c ? this.#expand(c).join(' ') : '')).join('')];
      case 'simple_expansion':
      case 'expansion':
        return this.#variable(node)
          .split(/\s+/)
          .filter((f) => f !== '');
      case 'command_substitution':
        return this.#substitute(node)
          .split(/\s+/)
          .filter((f) => f !== '');
      default:
        throw new Unsupported(`${node.type} (${node.text.slice(0, 40)})`);
    }
  }

  /** One word, without field splitting (assignments, case words): $(...) keeps its newlines. */
  #word(node: Node): string {
    if (node.type === 'command_substitution') return this.#substitute(node);
    if (node.type === 'simple_expansion' || node.type === 'expansion') return this.#variable(node);
    if (node.type === 'concatenation') return node.namedChildren.map((c) => (c ? this.#word(c) : '')).join('');
    return this.#expand(node).join(' ');
  }

  #string(node: Node): string {
    // Text between expansions is not always a node of its own (the space in "$a $b"): walk the source.
    const literal = (t: string) => t.replace(/\\([$`"\\\n])/g, '$1');
    const bodyStart = node.startIndex + 1;
    const bodyEnd = node.endIndex - 1;
    let out = '';
    let at = bodyStart;
    for (const child of node.namedChildren) {
      if (!child || child.type === 'string_content') continue;
      // The grammar may fold the whitespace before `$` into the expansion node (" $?"): split at the `$`.
      const dollar = child.startIndex + Math.max(0, child.text.indexOf('$'));
      out += literal(node.text.slice(at - node.startIndex, dollar - node.startIndex));
      if (child.type === 'simple_expansion' || child.type === 'expansion') out += this.#variable(child);
      else if (child.type === 'command_substitution') out += this.#substitute(child);
      else throw new Unsupported(`${child.type} in a string`);
      at = child.endIndex;
    }
    return out + literal(node.text.slice(at - node.startIndex, bodyEnd - node.startIndex));
  }

  #interpolate(text: string): string {
    return text.replace(/\\([$`\\])|\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (whole, escaped: string | undefined, name: string | undefined) => {
      if (escaped) return escaped;
      return whole.startsWith('\\') ? whole : this.#read(name ?? '');
    });
  }

  #read(name: string): string {
    if (name === '?') return String(this.#status);
    if (name === '#') return String(this.#args.length);
    if (name === '@' || name === '*') return this.#args.join(' ');
    if (/^\d+$/.test(name)) return this.#args[Number(name) - 1] ?? '';
    const value = this.env.get(name);
    if (value === undefined && this.#nounset) {
      throw new BashUnbound(`bash: line ${this.#line}: ${name}: unbound variable\n`);
    }
    return value ?? '';
  }

  #variable(node: Node): string {
    if (node.type === 'simple_expansion') return this.#read(node.text.trim().slice(1));
    const name = node.namedChildren.find((c) => c?.type === 'variable_name' || c?.type === 'special_variable_name')?.text ?? '';
    const op = node.children.find((c) => c && !c.isNamed && !['${', '}'].includes(c.type))?.text;
    if (node.text.startsWith('${#')) return String((this.env.get(name) ?? '').length);
    if (op === ':-' || op === '-' || op === ':=' || op === '=') {
      const value = this.env.get(name);
      const empty = value === undefined || (op.startsWith(':') && value === '');
      if (!empty) return value;
      const fallback = node.namedChildren
        .filter((c) => c !== null && c.type !== 'variable_name')
        .map((c) => (c ? this.#expand(c).join(' ') : ''))
        .join('');
      if (op.endsWith('=')) this.env.set(name, fallback);
      return fallback;
    }
    if (op !== undefined) throw new Unsupported(`the expansion ${node.text}`);
    return this.#read(name);
  }

  #substitute(node: Node): string {
    const io: Io = { stdin: this.#stdin, out: [], err: [] };
    const savedErrexit = this.#errexit;
    try {
      this.#substitutionStatus = this.#block(node.namedChildren, io);
    } catch (err) {
      if (!(err instanceof BashExit)) throw err;
      this.#substitutionStatus = err.code;
    } finally {
      this.#errexit = savedErrexit;
    }
    return io.out.join('').replace(/\n+$/, '');
  }
}

/** set -u and an unset variable: bash prints the reason and exits 1. */
class BashUnbound extends BashExit {
  constructor(readonly text: string) {
    super(127);
  }
}

function unescapeAnsi(text: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0', e: '\x1b' };
  return text.replace(/\\(.)/g, (_, c: string) => map[c] ?? `\\${c}`);
}
