// Loops and switch (about_Foreach, about_For, about_While, about_Do, about_Switch, about_Break, about_Continue):
// the third layer of the interpreter. break and continue unwind as signals carrying what was written so far.

import { errorOf } from './error-record.js';
import { PsExit, PsScriptError } from './errors.js';
import { matchesTable } from './operators.js';
import type { Node } from './parser.js';
import { PsPipelines, ReturnSignal } from './pipelines.js';
import { dotnetRegex } from './regex.js';
import { unsupported, unwrap, variableName } from './syntax.js';
import { isTruthy, looseEquals, toItems, toText, wildcardMatch } from './values.js';

export class BreakSignal extends Error {
  partial: unknown[] = [];
}
export class ContinueSignal extends Error {
  partial: unknown[] = [];
}

type Outcome = { out: unknown[]; broke: boolean; continued: boolean };

/** What a loop wrote before something unwound it (return, exit, an error) goes up with it. */
function unwinding(out: unknown[], err: unknown): unknown {
  if (err instanceof Error && Array.isArray((err as { partial?: unknown }).partial)) {
    const carrier = err as Error & { partial: unknown[] };
    carrier.partial = [...out, ...carrier.partial];
  }
  return err;
}

export abstract class PsControlFlow<H> extends PsPipelines<H> {
  /** The error a catch block is handling, for a bare `throw`. */
  protected handling: PsScriptError | undefined;

  /** One pass of a loop body: break and continue end it, and say whether the loop goes on. */
  #pass(body: Node): Outcome {
    try {
      return { out: this.statements(body), broke: false, continued: false };
    } catch (err) {
      if (err instanceof BreakSignal) return { out: err.partial, broke: true, continued: false };
      if (err instanceof ContinueSignal) return { out: err.partial, broke: false, continued: true };
      throw err;
    }
  }

  protected foreachStatement(node: Node): unknown[] {
    const named = node.namedChildren.filter((c): c is Node => c !== null);
    const [variable, source] = named;
    const body = named.find((c) => c.type === 'statement_block');
    if (!variable || !source || !body || variable.type !== 'variable') throw unsupported(node);
    const out: unknown[] = [];
    try {
      for (const item of toItems(this.value(source))) {
        this.set(variableName(variable), item);
        const pass = this.#pass(body);
        out.push(...pass.out);
        if (pass.broke) break;
      }
    } catch (err) {
      throw unwinding(out, err);
    }
    return out;
  }

  protected forStatement(node: Node): unknown[] {
    const part = (type: string) => node.namedChildren.find((c) => c?.type === type)?.namedChildren.find((c) => c !== null) ?? undefined;
    const [init, condition, iterator] = [part('for_initializer'), part('for_condition'), part('for_iterator')];
    const body = node.namedChildren.find((c) => c?.type === 'statement_block');
    if (!body) throw unsupported(node);
    const out: unknown[] = [];
    if (init) this.value(init);
    try {
      while (!condition || this.truthy(condition)) {
        const pass = this.#pass(body);
        out.push(...pass.out);
        if (pass.broke) break;
        if (iterator) this.value(iterator);
      }
    } catch (err) {
      throw unwinding(out, err);
    }
    return out;
  }

  /** while (c) { } and do { } while (c) / do { } until (c). */
  protected whileStatement(node: Node): unknown[] {
    const condition = node.namedChildren.find((c) => c?.type === 'while_condition')?.namedChildren.find((c) => c !== null);
    const body = node.namedChildren.find((c) => c?.type === 'statement_block');
    if (!condition || !body) throw unsupported(node);
    const isDo = node.type === 'do_statement';
    const until = isDo && node.children.some((c) => c?.text.toLowerCase() === 'until');
    const goOn = () => this.truthy(condition) !== until;
    const out: unknown[] = [];
    if (!isDo && !goOn()) return out;
    try {
      for (;;) {
        const pass = this.#pass(body);
        out.push(...pass.out);
        if (pass.broke || !goOn()) break;
      }
    } catch (err) {
      throw unwinding(out, err);
    }
    return out;
  }

  protected switchStatement(node: Node): unknown[] {
    const flags = new Set(
      (node.namedChildren.find((c) => c?.type === 'switch_parameters')?.namedChildren ?? []).map((p) => p?.text.toLowerCase().slice(1)),
    );
    for (const f of flags) if (!['regex', 'wildcard', 'exact', 'casesensitive'].includes(f ?? '')) throw unsupported(node, `switch -${f}`);
    const condition = node.namedChildren.find((c) => c?.type === 'switch_condition')?.namedChildren.find((c) => c !== null);
    const clauses = (
      node.namedChildren.find((c) => c?.type === 'switch_body')?.namedChildren.find((c) => c?.type === 'switch_clauses')?.namedChildren ??
      []
    ).filter((c): c is Node => c?.type === 'switch_clause');
    if (!condition) throw unsupported(node);
    const value = this.value(condition);
    const items = value === null || value === undefined ? [null] : toItems(value);
    const out: unknown[] = [];
    const previous = this.scopes.has('_') ? this.get('_') : null;
    try {
      nextItem: for (const item of items) {
        this.scopes.setAutomatic('_', item);
        let matched = false;
        for (const pass of [false, true]) {
          for (const clause of clauses) {
            const test = clause.namedChildren.find((c) => c?.type === 'switch_clause_condition') as Node;
            const body = clause.namedChildren.find((c) => c?.type === 'statement_block') as Node;
            const isDefault = test.namedChildCount === 0 && test.text.toLowerCase() === 'default';
            // Default runs only when no other clause matched this item.
            if (isDefault !== pass || (pass && matched) || !(isDefault || this.#clauseMatches(test, item, flags))) continue;
            matched = true;
            const result = this.#pass(body);
            out.push(...result.out);
            if (result.broke) break nextItem;
            // continue in a switch goes on with its next item.
            if (result.continued) continue nextItem;
          }
        }
      }
    } catch (err) {
      throw unwinding(out, err);
    } finally {
      this.scopes.setAutomatic('_', previous);
    }
    return out;
  }

  #clauseMatches(test: Node, item: unknown, flags: Set<string | undefined>): boolean {
    const inner = test.namedChildren.find((c) => c !== null);
    if (inner && unwrap(inner).type === 'script_block_expression') {
      const block = this.expr(inner) as { invoke(v: unknown): unknown[] };
      return isTruthy(block.invoke(item).at(-1));
    }
    let pattern: unknown;
    if (inner) pattern = this.expr(inner);
    else {
      const text = test.text.trim();
      if (text.startsWith('"') && text.includes('$')) throw unsupported(test, 'an expandable string as a switch clause');
      pattern = /^(['"]).*\1$/s.test(text) ? text.slice(1, -1) : text;
    }
    const cs = flags.has('casesensitive');
    if (flags.has('regex')) {
      const m = dotnetRegex(toText(pattern), cs).exec(toText(item));
      if (m) this.scopes.setAutomatic('Matches', matchesTable(m));
      return m !== null;
    }
    if (flags.has('wildcard')) return wildcardMatch(toText(item), toText(pattern), cs);
    return cs ? toText(item) === toText(pattern) : looseEquals(item, pattern);
  }

  /** exit, throw, return, break, continue (about_Throw, about_Return, about_Break, about_Continue). */
  protected flowStatement(node: Node): unknown[] {
    const keyword = node.child(0)?.text.toLowerCase();
    const operand = node.namedChildren.find((c) => c !== null);
    switch (keyword) {
      case 'exit':
        throw new PsExit(operand ? Number(toText(this.value(operand))) || 0 : 0);
      case 'throw': {
        if (!operand && this.handling) throw this.handling;
        const value = operand ? this.value(operand) : undefined;
        const original = errorOf(value);
        if (original)
          throw new PsScriptError(original.message, original.errorId, original.category, original.source, original.exceptionType);
        const message = operand ? toText(value) : 'ScriptHalted';
        const thrown = new PsScriptError(
          message,
          message,
          `OperationStopped: (${message}:String) [], RuntimeException`,
          undefined,
          'System.Management.Automation.RuntimeException',
        );
        thrown.targetObject = operand ? value : null;
        throw thrown;
      }
      case 'return': {
        const signal = new ReturnSignal('return');
        signal.partial = operand ? toItems(this.value(operand)) : [];
        throw signal;
      }
      case 'break':
      case 'continue':
        if (operand) throw unsupported(node, `a labelled ${keyword}`);
        throw keyword === 'break' ? new BreakSignal('break') : new ContinueSignal('continue');
      default:
        throw unsupported(node);
    }
  }
}
