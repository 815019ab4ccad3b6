// A small bash over tree-sitter-bash trees: the subset documented in docs/simulator.md, run against a
// simulated Linux host. Anything outside it fails loudly instead of being skipped.
//
// Four layers, by what each needs: words.ts (variables and expansions, $(( ))), commands.ts (simple commands,
// builtins, functions, tests), control-flow.ts (for, while, until, case) and this file (statements: lists,
// pipelines, if, (( )), subshells, redirections).

import type { CommandResult } from '../../command-result.js';
import type { Node, Tree } from '../tree-sitter.js';
import { BashControlFlow } from './control-flow.js';
import { BashExit, BashFatal, Unsupported } from './errors.js';
import type { Io } from './words.js';

export class BashInterpreter extends BashControlFlow {
  /** Inside an if/while condition, or left of && / ||, or after !: errexit does not fire there. */
  #conditional = 0;

  run(tree: Tree, stdin: string): CommandResult {
    this.stdin = stdin;
    const io: Io = { stdin, out: [], err: [] };
    let code: number;
    try {
      this.block(tree.rootNode.namedChildren, io);
      code = this.status;
    } catch (err) {
      if (err instanceof BashFatal) io.err.push(err.text);
      if (err instanceof BashExit) code = err.code;
      else if (err instanceof Unsupported) {
        io.err.push(`bash: groundcrew sim: ${err.message} is outside the simulated subset (docs/simulator.md)\n`);
        code = 2;
      } else throw err;
    }
    return { stdout: io.out.join(''), stderr: io.err.join(''), exitCode: code };
  }

  protected block(nodes: (Node | null)[], io: Io): number {
    for (const node of nodes) if (node?.isNamed && node.type !== 'comment') this.#statement(node, io);
    return this.status;
  }

  #statement(node: Node, io: Io): number {
    this.line = node.startPosition.row + 1;
    const status = this.dispatch(node, io);
    this.status = status;
    if (
      status !== 0 &&
      this.errexit &&
      this.#conditional === 0 &&
      !['if_statement', 'for_statement', 'while_statement', 'case_statement', 'list', 'negated_command'].includes(node.type)
    ) {
      throw new BashExit(status);
    }
    return status;
  }

  protected dispatch(node: Node, io: Io): number {
    const savedErr = this.currentErr;
    this.currentErr = io.err;
    try {
      return this.#dispatchTo(node, io);
    } finally {
      this.currentErr = savedErr;
    }
  }

  #dispatchTo(node: Node, io: Io): number {
    switch (node.type) {
      case 'command':
        return this.command(node, io);
      case 'variable_assignment':
        // x=$(cmd) leaves cmd's status in $?; a plain assignment leaves 0.
        this.substitutionStatus = 0;
        this.assign(node);
        return this.substitutionStatus;
      case 'declaration_command':
        return this.declaration(node, io);
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
      case 'c_style_for_statement':
        return this.forStatement(node, io);
      case 'while_statement':
        return this.whileStatement(node, io);
      case 'case_statement':
        return this.caseStatement(node, io);
      case 'compound_statement':
        // (( expr )): status 0 when the expression is not zero.
        if (node.child(0)?.type === '((') return this.arithmetic(node.text.replace(/^\(\(|\)\)$/g, '')) === '0' ? 1 : 0;
        return this.block(node.namedChildren, io);
      case 'subshell':
        return this.#subshell(node, io);
      case 'negated_command': {
        this.#conditional++;
        try {
          return this.dispatch(node.namedChild(0) as Node, io) === 0 ? 1 : 0;
        } finally {
          this.#conditional--;
        }
      }
      case 'test_command':
        return this.test(node) ? 0 : 1;
      case 'function_definition': {
        const name = node.childForFieldName('name')?.text ?? node.namedChild(0)?.text ?? '';
        this.functions.set(name, node.childForFieldName('body') ?? (node.namedChild(1) as Node));
        return 0;
      }
      case 'comment':
        return this.status;
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
      status = this.dispatch(left, io);
    } finally {
      this.#conditional--;
    }
    this.status = status;
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
      // Each command of a pipeline runs in a subshell: what it sets is gone afterwards (bash manual, Pipelines).
      const saved = stages.length > 1 ? { cwd: this.cwd, env: new Map(this.env) } : undefined;
      try {
        statuses.push(this.dispatch(stage, stageIo));
      } catch (err) {
        if (!(err instanceof BashExit)) throw err;
        if (err instanceof BashFatal) io.err.push(err.text);
        statuses.push(err.code);
      } finally {
        this.#conditional--;
        if (saved) {
          this.cwd = saved.cwd;
          this.env.clear();
          for (const [k, v] of saved.env) this.env.set(k, v);
        }
      }
      input = stageIo.out.join('');
    });
    return this.pipefail ? (statuses.filter((s) => s !== 0).at(-1) ?? 0) : (statuses.at(-1) ?? 0);
  }

  #subshell(node: Node, io: Io): number {
    const saved = { cwd: this.cwd, env: new Map(this.env) };
    try {
      return this.block(node.namedChildren, io);
    } catch (err) {
      if (err instanceof BashFatal) io.err.push(err.text);
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
    if (this.condition(condition, io) === 0) return this.block(body, io);
    for (; i < children.length; i++) {
      const clause = children[i] as Node;
      if (clause.type === 'elif_clause') {
        const parts = clause.children.filter((c): c is Node => c !== null);
        const thenAt = parts.findIndex((p) => p.type === 'then');
        if (this.condition(parts.slice(1, thenAt), io) === 0) return this.block(parts.slice(thenAt + 1), io);
      } else if (clause.type === 'else_clause') {
        return this.block(clause.children.slice(1), io);
      }
    }
    return 0;
  }

  protected condition(nodes: Node[], io: Io): number {
    this.#conditional++;
    try {
      let status = 0;
      for (const n of nodes) if (n.isNamed && n.type !== 'comment') status = this.dispatch(n, io);
      return status;
    } finally {
      this.#conditional--;
    }
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
        inner.stdin = quoted ? raw : this.interpolate(raw);
      } else if (r.type === 'herestring_redirect') {
        inner.stdin = `${this.expand(r.namedChild(0) as Node).join(' ')}\n`;
      } else if (r.type === 'file_redirect') {
        const fdNode = r.namedChildren.find((c) => c?.type === 'file_descriptor');
        const op = r.children.find((c) => c && !c.isNamed)?.text ?? '>';
        const dest = r.namedChildren.filter((c) => c?.type !== 'file_descriptor').at(-1) as Node;
        const target = this.expand(dest).join(' ');
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
    const status = this.dispatch(body, inner);
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
}
