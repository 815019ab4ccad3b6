// PowerShell expressions in the simulator: variables, literals, operators, members, casts and script blocks.

import { cast } from './casts.js';
import type { ScriptBlockValue } from './commands.js';
import { staticAssign, staticCall, staticMember } from './dotnet-statics.js';
import { PsTerminatingError, PsUnmodelled } from './errors.js';
import { callMethod, getMember } from './members.js';
import { binaryOperator, unaryOperator } from './operators.js';
import type { Node } from './parser.js';
import { stringLiteral } from './strings.js';
import { kind, notModelled, unsupported, unwrap, variableName } from './syntax.js';
import { collapse, isTruthy, PsObject, toText } from './values.js';
import { Scopes } from './variables.js';

export interface InterpreterOptions {
  stdin?: string;
  env?: Record<string, string>;
}

const INCREMENTS: Record<string, { delta: number; post: boolean }> = {
  post_increment_expression: { delta: 1, post: true },
  post_decrement_expression: { delta: -1, post: true },
  pre_increment_expression: { delta: 1, post: false },
  pre_decrement_expression: { delta: -1, post: false },
};

/** `++` and `--` (about_Assignment_Operators): as a statement they write nothing. */
export function isIncrement(node: Node): boolean {
  return node.type in INCREMENTS;
}

function nullIndex(): PsTerminatingError {
  return new PsTerminatingError(
    'Cannot index into a null array.',
    'NullArray',
    'InvalidOperation: (:) [], RuntimeException',
    undefined,
    'System.Management.Automation.RuntimeException',
  );
}

/**
 * The first of the interpreter's layers (expressions, pipelines.ts, control-flow.ts, interpreter.ts): values
 * and variables. An expression can hold a pipeline or statements ($(...), @(...), { }), which the layers above run.
 */
export abstract class PsExpressions<H> {
  protected readonly scopes = new Scopes();

  constructor(
    protected readonly host: H,
    protected readonly options: InterpreterOptions,
  ) {}

  protected abstract statements(node: Node): unknown[];
  /** A script block's statements, in a scope of its own, with `$_` set (Where-Object, ForEach-Object, switch). */
  protected abstract scriptBlockBody(block: Node): unknown[];
  protected abstract pipeline(node: Node): unknown[];

  /** Stores the value and returns it: an assignment used as a value is what it assigned (`$a = $b = 4`). */
  protected assign(node: Node): unknown {
    const [target, op, value] = [node.child(0), node.child(1), node.child(2)];
    if (!target || !op || !value) throw unsupported(node);
    let t = unwrap(target);
    let result = this.value(value);
    // [int]$n = '5': the cast applies to what is stored, and to every later assignment in that scope.
    let constraint: string | undefined;
    if (t.type === 'cast_expression') {
      constraint = t.namedChild(0)?.text.replace(/^\[|\]$/g, '') ?? '';
      t = unwrap(t.namedChild(1) as Node);
      if (t.type !== 'variable') throw unsupported(t, 'a cast on the left of an assignment to anything but a variable');
    }
    const compound = op.text.slice(0, -1);
    if (compound !== '') {
      if (!['+', '-', '*', '/', '%'].includes(compound)) throw unsupported(op, `the assignment operator ${op.text}`);
      result = binaryOperator(compound, this.expr(t), result);
    }
    if (t.type === 'variable') {
      const name = variableName(t);
      if (constraint !== undefined) result = cast(constraint, result);
      else result = this.#convertForConstraint(name, result);
      if (constraint !== undefined) this.scopes.constrain(name, constraint);
    }
    this.store(t, result);
    return result;
  }

  /** An assignment to a variable declared `[T]$x` converts to T; a value that will not is a MetadataError (about_Variables). */
  #convertForConstraint(name: string, value: unknown): unknown {
    const type = this.scopes.constraint(name);
    if (type === undefined) return value;
    try {
      return cast(type, value);
    } catch (err) {
      if (!(err instanceof PsTerminatingError) || err instanceof PsUnmodelled) throw err;
      throw new PsTerminatingError(
        err.message,
        'RuntimeException',
        'MetadataError: (:) [], ArgumentTransformationMetadataException',
        undefined,
        'System.Management.Automation.ArgumentTransformationMetadataException',
      );
    }
  }

  protected store(t: Node, result: unknown): void {
    if (t.type === 'variable') this.set(variableName(t), result);
    else if (t.type === 'element_access') {
      const container = this.expr(t.namedChild(0) as Node);
      const key = this.expr(t.namedChild(1) as Node);
      if (container instanceof PsObject) container.set(toText(key), result);
      else if (Array.isArray(container) && typeof key === 'number') {
        if (key >= container.length || key < -container.length)
          throw new PsTerminatingError(
            'Index was outside the bounds of the array.',
            'IndexOutOfRange',
            'OperationStopped: (:) [], IndexOutOfRangeException',
          );
        container[key < 0 ? container.length + key : key] = result;
      } else if (container === null || container === undefined) throw nullIndex();
      else throw notModelled(`assigning to an element of ${toText(container)}`);
    } else if (t.type === 'member_access' && unwrap(t.namedChild(0) as Node).type === 'type_literal') {
      staticAssign(this.host, unwrap(t.namedChild(0) as Node), t.namedChild(1)?.text ?? '', result);
    } else if (t.type === 'member_access') {
      const container = this.expr(t.namedChild(0) as Node);
      const name = t.namedChild(1)?.text ?? '';
      if (!(container instanceof PsObject))
        throw new PsTerminatingError(
          `The property '${name}' cannot be found on this object. Verify that the property exists and can be set.`,
          'PropertyAssignmentException',
          'InvalidOperation: (:) [], RuntimeException',
        );
      container.set(name, result);
    } else throw unsupported(t);
  }

  protected truthy(node: Node): boolean {
    return isTruthy(this.value(node));
  }

  /** A statement used as a value: pipelines collapse to null, one item, or an array. */
  protected value(node: Node): unknown {
    const n = unwrap(node);
    if (n.type === 'command' || n.type === 'pipeline_chain') return collapse(this.pipeline(n));
    if (n.type === 'assignment_expression') return this.assign(n);
    return this.expr(n);
  }

  protected expr(raw: Node): unknown {
    const node = unwrap(raw);
    switch (kind(node)) {
      case 'variable':
        return this.get(variableName(node));
      case 'string_literal':
      case 'expandable_string_literal':
      case 'verbatim_string_characters':
      case 'expandable_here_string_literal':
      case 'verbatim_here_string_characters':
        return this.#string(node);
      case 'decimal_integer_literal':
      case 'real_literal':
        if (!/^[\d.]+(e[+-]?\d+)?$/i.test(node.text)) throw unsupported(node, 'a number with a type suffix or multiplier');
        return Number(node.text);
      case 'hexadecimal_integer_literal':
        return Number.parseInt(node.text, 16);
      case 'array_literal_expression':
        return node.namedChildren.filter((c): c is Node => c !== null).map((c) => this.expr(c));
      case 'array_expression': {
        const inner = node.namedChildren.find((c) => c !== null);
        return inner ? [...this.statements(inner)] : [];
      }
      case 'parenthesized_expression':
      case 'sub_expression': {
        const inner = node.namedChildren.find((c) => c !== null);
        if (!inner) return null;
        return node.type === 'sub_expression' ? collapse(this.statements(inner)) : this.value(inner);
      }
      case 'hash_literal_expression':
        return this.#hashtable(node, 'System.Collections.Hashtable');
      case 'cast_expression':
        return this.#cast(node);
      case 'member_access': {
        const target = node.namedChild(0) as Node;
        if (target.type === 'type_literal')
          return staticMember(this.host, this.options.stdin ?? '', target, node.namedChild(1)?.text ?? '');
        return getMember(this.expr(target), node.namedChild(1)?.text ?? '');
      }
      case 'invokation_expression':
        return this.#invoke(node);
      case 'element_access':
        return this.#element(node);
      case 'script_block_expression':
        return this.#scriptBlock(node);
      case 'command':
      case 'pipeline_chain':
        return collapse(this.pipeline(node));
      case 'expression_with_unary_operator': {
        const op = node.child(0)?.text ?? '';
        const operand = this.expr(node.namedChild(node.namedChildCount - 1) as Node);
        return op === ',' ? [operand] : unaryOperator(op, operand);
      }
      case 'post_increment_expression':
      case 'post_decrement_expression':
      case 'pre_increment_expression':
      case 'pre_decrement_expression':
        return this.#increment(node);
      case 'comparison_expression':
      case 'logical_expression':
      case 'additive_expression':
      case 'multiplicative_expression':
      case 'bitwise_expression':
      case 'format_expression':
      case 'range_expression': {
        const op = node.child(1)?.text ?? '';
        if (op.toLowerCase() === '-and') return this.truthy(node.child(0) as Node) && this.truthy(node.child(2) as Node);
        if (op.toLowerCase() === '-or') return this.truthy(node.child(0) as Node) || this.truthy(node.child(2) as Node);
        return binaryOperator(op, this.expr(node.child(0) as Node), this.expr(node.child(2) as Node), (m) =>
          this.scopes.setAutomatic('Matches', m),
        );
      }
      default:
        throw unsupported(node);
    }
  }

  #increment(node: Node): unknown {
    const { delta, post } = INCREMENTS[node.type] ?? { delta: 0, post: true };
    const target = unwrap(node.namedChild(0) as Node);
    const before = this.expr(target);
    const after = binaryOperator('+', before ?? 0, delta);
    this.store(target, after);
    return post ? before : after;
  }

  #element(node: Node): unknown {
    const container = this.expr(node.namedChild(0) as Node);
    const key = this.expr(node.namedChild(1) as Node);
    if (container === null || container === undefined) throw nullIndex();
    if (container instanceof PsObject) {
      if (!container.isHashtable && container.typeName !== 'System.Management.Automation.PSCustomObject')
        throw notModelled(`indexing into [${container.typeName}]`);
      return container.get(toText(key)) ?? null;
    }
    const at = (items: ArrayLike<unknown>, i: unknown) => {
      const n = Number(i);
      return items[n < 0 ? items.length + n : n] ?? null;
    };
    if (Array.isArray(key)) return key.map((k) => this.#element1(container, k, at));
    return this.#element1(container, key, at);
  }

  #element1(container: unknown, key: unknown, at: (items: ArrayLike<unknown>, i: unknown) => unknown): unknown {
    if (Array.isArray(container) || typeof container === 'string') return at(container, key);
    // A scalar indexes as a one-item collection: (5)[0] is 5.
    return Number(key) === 0 || Number(key) === -1 ? container : null;
  }

  #string(node: Node): string {
    return stringLiteral(node, (insert) => (insert.type === 'variable' ? this.get(variableName(insert)) : this.expr(insert)));
  }

  #hashtable(node: Node, typeName: string): PsObject {
    const table = new PsObject(typeName);
    const body = node.namedChildren.find((c) => c?.type === 'hash_literal_body');
    const entries = body ? body.namedChildren : node.namedChildren.filter((c) => c?.type === 'hash_entry');
    for (const entry of entries) {
      if (entry?.type !== 'hash_entry') continue;
      const keyNode = entry.namedChild(0) as Node;
      const key = keyNode.type === 'simple_name' || keyNode.type === 'key_expression' ? keyNode.text : toText(this.expr(keyNode));
      table.set(key, this.value(entry.namedChild(1) as Node));
    }
    return table;
  }

  #cast(node: Node): unknown {
    const type = node.namedChild(0)?.text.replace(/^\[|\]$/g, '') ?? '';
    const operand = node.namedChild(1) as Node;
    const inner = unwrap(operand);
    const lower = type.toLowerCase();
    if (lower === 'ordered' && inner.type === 'hash_literal_expression')
      return this.#hashtable(inner, 'System.Collections.Specialized.OrderedDictionary');
    if ((lower === 'pscustomobject' || lower === 'hashtable') && inner.type === 'hash_literal_expression')
      return this.#hashtable(inner, lower === 'hashtable' ? 'System.Collections.Hashtable' : 'System.Management.Automation.PSCustomObject');
    if (lower === 'ordered') throw unsupported(node, '[ordered] on anything but a hash literal');
    return cast(type, this.expr(operand));
  }

  #invoke(node: Node): unknown {
    const targetNode = node.namedChild(0) as Node;
    const method = node.namedChild(1)?.text ?? '';
    if (targetNode.type === 'type_literal') return staticCall(this.host, targetNode, method, this.#arguments(node));
    const target = this.expr(targetNode);
    return callMethod(target, method, this.#arguments(node));
  }

  #arguments(node: Node): unknown[] {
    const argList = node.namedChildren.find((c) => c?.type === 'argument_list');
    const flatten = (n: Node): Node[] =>
      ['argument_expression_list', 'argument_list', 'argument_expression'].includes(n.type)
        ? n.namedChildren.filter((c): c is Node => c !== null).flatMap(flatten)
        : [n];
    return argList ? flatten(argList).map((c) => this.expr(c)) : [];
  }

  #scriptBlock(node: Node): ScriptBlockValue {
    const body = node.namedChildren.find((c) => c !== null && c.type !== 'param_block');
    if (node.namedChildren.some((c) => c?.type === 'param_block')) throw unsupported(node, 'a script block with param()');
    return {
      kind: 'scriptblock',
      text: node.text.slice(1, -1).trim(),
      invoke: (dollarUnderscore: unknown) =>
        this.scopes.inChild(() => {
          this.scopes.setAutomatic('_', dollarUnderscore);
          return body ? this.scriptBlockBody(body) : [];
        }),
    };
  }

  protected get(name: string): unknown {
    const lower = name.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    if (lower === 'null') return null;
    if (lower === 'psitem') return this.scopes.get('_');
    if (lower.startsWith('env:'))
      return this.options.env?.[Object.keys(this.options.env).find((k) => k.toLowerCase() === lower.slice(4)) ?? ''] ?? null;
    return this.scopes.get(name);
  }

  protected set(name: string, value: unknown): void {
    if (name.toLowerCase().startsWith('env:')) {
      // The process's environment: what programs started later see.
      const env = this.options.env ?? {};
      const key = Object.keys(env).find((k) => k.toLowerCase() === name.slice(4).toLowerCase()) ?? name.slice(4);
      if (value === null || value === undefined || value === '') delete env[key];
      else env[key] = toText(value);
      this.options.env = env;
      return;
    }
    this.scopes.set(name, value);
  }
}
