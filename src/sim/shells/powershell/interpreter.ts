// A small PowerShell interpreter over tree-sitter-powershell trees: the subset documented in
// docs/simulator.md. Anything outside it fails loudly, as an unknown command would on Windows.
//
// Three layers, by what each needs: expressions.ts (values and variables), pipelines.ts (commands and
// their errors) and this file (statements: if, foreach, try/catch, exit and throw, and the script itself).

import type { CommandResult } from '../../command-result.js';
import type { Registry } from './commands.js';
import { formatError, PsError, PsExit, PsScriptError, PsTerminatingError } from './errors.js';
import type { InterpreterOptions } from './expressions.js';
import type { Node, Tree } from './parser.js';
import { PsPipelines } from './pipelines.js';
import { BLOCKS, unsupported, unwrap, variableName } from './syntax.js';
import { formatOutput, PsObject, toItems, toText } from './values.js';

/** Unwinds the whole script after its error was written; carries the output written before it. */
class ScriptTerminating extends Error {
  partial: unknown[] = [];

  constructor(readonly error: PsError) {
    super(error.message);
  }
}

export class Interpreter<H> extends PsPipelines<H> {
  readonly #out: unknown[] = [];

  constructor(host: H, registry: Registry<H>, options: InterpreterOptions = {}) {
    super(host, registry, options);
    this.set('ErrorActionPreference', 'Continue');
    this.set('LASTEXITCODE', 0);
  }

  run(tree: Tree, source: string): CommandResult {
    this.source = source.split(/\r?\n/);
    let exitCode: number;
    try {
      this.#out.push(...this.statements(tree.rootNode));
      exitCode = this.lastFailed ? 1 : 0;
    } catch (err) {
      if (err instanceof PsExit) exitCode = err.code;
      else if (err instanceof ScriptTerminating) exitCode = 1;
      else throw err;
      this.#out.push(...err.partial);
    }
    return { stdout: formatOutput(this.#out), stderr: this.stderr, exitCode };
  }

  protected statements(node: Node): unknown[] {
    const out: unknown[] = [];
    const list = BLOCKS.has(node.type) ? node.namedChildren : [node];
    try {
      for (const child of list) {
        if (!child) continue;
        if (child.type === 'statement_list') out.push(...this.statements(child));
        else if (child.type !== 'comment') out.push(...this.#statement(child));
      }
    } catch (err) {
      if (err instanceof PsExit || err instanceof ScriptTerminating) err.partial = [...out, ...err.partial];
      throw err;
    }
    return out;
  }

  #statement(raw: Node): unknown[] {
    const node = unwrap(raw);
    this.current = node;
    this.lastFailed = false;
    try {
      return this.#statementUnguarded(node);
    } catch (err) {
      if (err instanceof PsTerminatingError && !(err instanceof PsScriptError) && this.preference() !== 'Stop') {
        this.#writeError(err, node);
        this.lastFailed = true;
        return [];
      }
      if (err instanceof PsError) {
        this.#writeError(err, node);
        throw new ScriptTerminating(err);
      }
      throw err;
    }
  }

  #statementUnguarded(node: Node): unknown[] {
    switch (node.type) {
      case 'statement_list':
        return this.statements(node);
      case 'assignment_expression':
        this.assign(node);
        return [];
      case 'if_statement':
        return this.#if(node);
      case 'foreach_statement':
        return this.#foreach(node);
      case 'try_statement':
        return this.#try(node);
      case 'flow_control_statement':
        return this.#flow(node);
      case 'pipeline_chain':
      case 'command':
        return this.pipeline(node);
      case 'empty_statement':
        return [];
      default:
        return toItems(this.expr(node));
    }
  }

  #if(node: Node): unknown[] {
    const condition = node.namedChildren.find(
      (c) => c && c.type !== 'statement_block' && c.type !== 'elseif_clause' && c.type !== 'else_clause',
    );
    const block = node.namedChildren.find((c) => c?.type === 'statement_block');
    if (condition && block && this.truthy(condition)) return this.statements(block);
    for (const clause of node.namedChildren) {
      if (clause?.type === 'elseif_clause') {
        const cond = clause.namedChildren.find((c) => c && c.type !== 'statement_block');
        const body = clause.namedChildren.find((c) => c?.type === 'statement_block');
        if (cond && body && this.truthy(cond)) return this.statements(body);
      }
      if (clause?.type === 'else_clause') {
        const body = clause.namedChildren.find((c) => c?.type === 'statement_block');
        return body ? this.statements(body) : [];
      }
    }
    return [];
  }

  #foreach(node: Node): unknown[] {
    const named = node.namedChildren.filter((c): c is Node => c !== null);
    const variable = named[0];
    const source = named[1];
    const body = named.find((c) => c.type === 'statement_block');
    if (!variable || !source || !body || variable.type !== 'variable') throw unsupported(node);
    const out: unknown[] = [];
    for (const item of toItems(this.value(source))) {
      this.set(variableName(variable), item);
      out.push(...this.statements(body));
    }
    return out;
  }

  #try(node: Node): unknown[] {
    const body = node.namedChildren.find((c) => c?.type === 'statement_block');
    const catchClause = node.namedChildren.find((c) => c?.type === 'catch_clauses' || c?.type === 'catch_clause');
    const handler = catchClause?.type === 'catch_clauses' ? catchClause.namedChild(0) : catchClause;
    if (!body) throw unsupported(node);
    const saved = this.get('ErrorActionPreference');
    try {
      // Inside try, errors that would terminate a statement are caught by catch, as in PowerShell.
      return this.statementsCatching(body);
    } catch (err) {
      const error = err instanceof ScriptTerminating ? err.error : err instanceof PsError ? err : undefined;
      if (!error || !handler) throw err;
      this.set('ErrorActionPreference', saved);
      const record = PsObject.from({ Exception: PsObject.from({ Message: error.message }), FullyQualifiedErrorId: error.errorId });
      const catchBody = handler.namedChildren.find((c) => c?.type === 'statement_block');
      const previous = this.get('_');
      this.set('_', record);
      try {
        return catchBody ? this.statements(catchBody) : [];
      } finally {
        this.set('_', previous);
      }
    }
  }

  protected statementsCatching(block: Node): unknown[] {
    const out: unknown[] = [];
    for (const child of block.namedChildren) {
      if (!child || child.type === 'comment') continue;
      const node = unwrap(child);
      if (BLOCKS.has(node.type)) {
        out.push(...this.statementsCatching(node));
        continue;
      }
      this.lastFailed = false;
      out.push(...this.#statementUnguarded(node));
    }
    return out;
  }

  #flow(node: Node): unknown[] {
    const keyword = node.child(0)?.text.toLowerCase();
    const operand = node.namedChildren.find((c) => c !== null);
    if (keyword === 'exit') throw new PsExit(operand ? Number(toText(this.value(operand))) || 0 : 0);
    if (keyword === 'throw') {
      throw new PsScriptError(operand ? toText(this.value(operand)) : 'ScriptHalted', 'RuntimeException', 'OperationStopped');
    }
    throw unsupported(node);
  }

  #writeError(err: PsError, node: Node): void {
    const line = node.startPosition.row + 1;
    this.stderr += formatError(err, line, node.startPosition.column + 1, this.source[line - 1] ?? '');
  }
}
