// A small PowerShell interpreter over tree-sitter-powershell trees: the subset documented in
// docs/simulator.md, behaving as Windows PowerShell 5.1 does. Anything outside it fails loudly (PsUnmodelled):
// no catch, -ErrorAction or redirection can turn what the simulator does not know into a value.
//
// Four layers, by what each needs: expressions.ts (values and variables), pipelines.ts (commands, functions,
// redirections and where errors go), control-flow.ts (loops, switch, break/continue/return/throw/exit) and
// this file (statements, try/catch/finally, $?, and the script itself).

import type { CommandResult } from '../../command-result.js';
import type { Registry } from './commands.js';
import { BreakSignal, ContinueSignal, PsControlFlow } from './control-flow.js';
import { errorRecord } from './error-record.js';
import { formatError, PsError, PsExit, PsScriptError, PsTerminatingError, PsUnmodelled } from './errors.js';
import { isExceptionOf, resolveExceptionType } from './exception-types.js';
import { type InterpreterOptions, isIncrement } from './expressions.js';
import { type FunctionDef, functionDefinition } from './functions.js';
import type { Node, Tree } from './parser.js';
import { ReturnSignal } from './pipelines.js';
import { BLOCKS, notModelled, unsupported, unwrap } from './syntax.js';
import { formatOutput } from './values.js';
import { PREFERENCE_DEFAULTS } from './variables.js';

/** Unwinds the whole script after its error was written; carries the output written before it. */
class ScriptTerminating extends Error {
  partial: unknown[] = [];

  constructor(readonly error: PsError) {
    super(error.message);
  }
}

type Unwinding = { partial: unknown[] };
const carriesOutput = (err: unknown): err is Unwinding =>
  err instanceof PsExit ||
  err instanceof ScriptTerminating ||
  err instanceof PsError ||
  err instanceof ReturnSignal ||
  err instanceof BreakSignal ||
  err instanceof ContinueSignal;

/** Statements after which $? tells whether they succeeded; compound ones leave what their last statement set. */
const COMPOUND = new Set([
  'if_statement',
  'foreach_statement',
  'for_statement',
  'while_statement',
  'do_statement',
  'switch_statement',
  'try_statement',
  'function_statement',
  'statement_list',
]);

export class Interpreter<H> extends PsControlFlow<H> {
  readonly #out: unknown[] = [];
  /** How many try blocks enclose the running statement: inside one, a terminating error goes to its catch. */
  #tryDepth = 0;

  constructor(host: H, registry: Registry<H>, options: InterpreterOptions = {}) {
    super(host, registry, options);
    for (const [name, value] of Object.entries(PREFERENCE_DEFAULTS)) this.scopes.setAutomatic(name, value, true);
    // $LASTEXITCODE stays unset ($null) until a program runs or a script exits (about_Automatic_Variables).
    this.scopes.setAutomatic('?', true, true);
    this.scopes.setAutomatic('args', [], true);
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
      // return, or break/continue outside any loop, end the script (about_Return, about_Break).
      else if (err instanceof ReturnSignal || err instanceof BreakSignal || err instanceof ContinueSignal)
        exitCode = this.lastFailed ? 1 : 0;
      else throw err;
      this.#out.push(...err.partial);
    }
    try {
      return { stdout: formatOutput(this.#out), stderr: this.stderr, exitCode };
    } catch (err) {
      // The host prints what is left in the pipeline; what it cannot print is refused like the rest.
      if (!(err instanceof PsUnmodelled)) throw err;
      return { stdout: '', stderr: `${this.stderr}${formatError(err, this.source.length, 1, '')}`, exitCode: 1 };
    }
  }

  protected statements(node: Node): unknown[] {
    const out: unknown[] = [];
    const list = BLOCKS.has(node.type) ? node.namedChildren : [node];
    try {
      for (const child of list) {
        if (!child) continue;
        if (BLOCKS.has(child.type)) out.push(...this.statements(child));
        else if (child.type !== 'comment') out.push(...this.#statement(child));
      }
    } catch (err) {
      if (carriesOutput(err)) err.partial = [...out, ...err.partial];
      throw err;
    }
    return out;
  }

  protected scriptBlockBody(block: Node): unknown[] {
    try {
      return this.statements(block);
    } catch (err) {
      if (err instanceof ReturnSignal) return err.partial;
      throw err;
    }
  }

  protected functionBody(def: FunctionDef): unknown[] {
    return def.body ? this.statements(def.body) : [];
  }

  #statement(raw: Node): unknown[] {
    const node = unwrap(raw);
    if (node.type === 'empty_statement') return [];
    this.current = node;
    this.lastFailed = false;
    try {
      const out = this.#dispatch(node);
      if (!COMPOUND.has(node.type)) this.scopes.setAutomatic('?', !this.lastFailed);
      return out;
    } catch (err) {
      if (err instanceof PsUnmodelled) {
        // Written once, where it happened, whatever redirection or catch is around it.
        this.stderr += formatError(
          err,
          node.startPosition.row + 1,
          node.startPosition.column + 1,
          this.source[node.startPosition.row] ?? '',
        );
        throw new ScriptTerminating(err);
      }
      if (err instanceof PsTerminatingError && this.#tryDepth > 0) {
        // A catch that writes nothing leaves $? False, and so the script's exit code 1 (ConsoleHost.cs).
        this.lastFailed = true;
        this.scopes.setAutomatic('?', false);
        throw err;
      }
      if (err instanceof PsTerminatingError && !(err instanceof PsScriptError) && this.preference() !== 'Stop') {
        this.reportError(err, node);
        this.lastFailed = true;
        this.scopes.setAutomatic('?', false);
        return err.partial;
      }
      if (err instanceof PsError) {
        this.reportError(err, node, 'Continue');
        const terminating = new ScriptTerminating(err);
        terminating.partial = err.partial;
        throw terminating;
      }
      throw err;
    }
  }

  #dispatch(node: Node): unknown[] {
    switch (node.type) {
      case 'statement_list':
        return this.statements(node);
      case 'assignment_expression':
        this.assign(node);
        return [];
      case 'if_statement':
        return this.#if(node);
      case 'foreach_statement':
        return this.foreachStatement(node);
      case 'for_statement':
        return this.forStatement(node);
      case 'while_statement':
      case 'do_statement':
        return this.whileStatement(node);
      case 'switch_statement':
        return this.switchStatement(node);
      case 'try_statement':
        return this.#try(node);
      case 'flow_control_statement':
        return this.flowStatement(node);
      case 'function_statement': {
        const def = functionDefinition(node);
        this.functions.set(def.name.toLowerCase(), def);
        return [];
      }
      case 'pipeline_chain':
      case 'command':
        return this.pipeline(node);
      case 'empty_statement':
        return [];
      default:
        if (isIncrement(node)) {
          this.expr(node);
          return [];
        }
        return this.expressionItems(node);
    }
  }

  #if(node: Node): unknown[] {
    const condition = node.namedChildren.find(
      (c) => c && c.type !== 'statement_block' && c.type !== 'elseif_clauses' && c.type !== 'elseif_clause' && c.type !== 'else_clause',
    );
    const block = node.namedChildren.find((c) => c?.type === 'statement_block');
    if (condition && block && this.truthy(condition)) return this.statements(block);
    // One elseif is a child of the if; several are grouped in elseif_clauses.
    const clauses = node.namedChildren.flatMap((c) => (c?.type === 'elseif_clauses' ? c.namedChildren : [c]));
    for (const clause of clauses) {
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

  /** try/catch/finally (about_Try_Catch_Finally): the first catch whose type matches; finally always runs. */
  #try(node: Node): unknown[] {
    const body = node.namedChildren.find((c) => c?.type === 'statement_block');
    const clauses = node.namedChildren
      .filter((c) => c?.type === 'catch_clauses' || c?.type === 'catch_clause')
      .flatMap((c) => (c?.type === 'catch_clauses' ? c.namedChildren : [c]))
      .filter((c): c is Node => c?.type === 'catch_clause');
    const finallyBlock = node.namedChildren
      .find((c) => c?.type === 'finally_clause')
      ?.namedChildren.find((c) => c?.type === 'statement_block');
    if (!body) throw unsupported(node);
    let out: unknown[] = [];
    let pending: unknown;
    this.#tryDepth++;
    try {
      out = this.statements(body);
    } catch (err) {
      pending = err;
    } finally {
      this.#tryDepth--;
    }
    if (pending instanceof ScriptTerminating || pending instanceof PsUnmodelled) throw pending;
    if (pending instanceof PsError) {
      const handler = clauses.find((c) => this.#catches(c, pending as PsError));
      if (handler) {
        const error = pending;
        pending = undefined;
        try {
          out = [...error.partial, ...this.#catch(handler, error)];
        } catch (inner) {
          if (carriesOutput(inner)) inner.partial = [...error.partial, ...inner.partial];
          pending = inner;
        }
      }
    }
    if (finallyBlock) {
      const after = this.statements(finallyBlock);
      if (pending && carriesOutput(pending)) pending.partial = [...pending.partial, ...after];
      else out.push(...after);
    }
    if (pending) throw pending;
    return out;
  }

  #catches(clause: Node, error: PsError): boolean {
    const types =
      clause.namedChildren.find((c) => c?.type === 'catch_type_list')?.namedChildren.filter((c): c is Node => c?.type === 'type_literal') ??
      [];
    if (types.length === 0) return true;
    return types.some((t) => {
      const wanted = resolveExceptionType(t.text);
      if (!wanted) throw notModelled(`the exception type ${t.text} in a catch`);
      if (wanted === 'System.Exception') return true;
      if (!error.exceptionType) throw notModelled(`the .NET type of the error '${error.errorId}' (for catch ${t.text})`);
      return isExceptionOf(error.exceptionType, wanted);
    });
  }

  #catch(handler: Node, error: PsError): unknown[] {
    const at = this.current;
    const line = (at?.startPosition.row ?? 0) + 1;
    const record = errorRecord(error, formatError(error, line, (at?.startPosition.column ?? 0) + 1, this.source[line - 1] ?? ''));
    this.errors.unshift(record);
    error.partial = [];
    const catchBody = handler.namedChildren.find((c) => c?.type === 'statement_block');
    const previous = this.scopes.has('_') ? this.get('_') : null;
    const handling = this.handling;
    this.scopes.setAutomatic('_', record);
    this.handling = new PsScriptError(error.message, error.errorId, error.category, error.source, error.exceptionType);
    try {
      return catchBody ? this.statements(catchBody) : [];
    } finally {
      this.scopes.setAutomatic('_', previous);
      this.handling = handling;
    }
  }
}
