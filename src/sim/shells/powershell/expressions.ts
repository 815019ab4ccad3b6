// PowerShell expressions in the simulator: variables, literals, operators, members, casts and script blocks.

import type { ScriptBlockValue } from './commands.js';
import { staticCall, staticMember } from './dotnet-statics.js';
import { PsTerminatingError } from './errors.js';
import { callMethod, getMember } from './members.js';
import { binaryOperator, unaryOperator } from './operators.js';
import type { Node } from './parser.js';
import { stringLiteral } from './strings.js';
import { kind, unsupported, unwrap, variableName } from './syntax.js';
import { collapse, isTruthy, PsObject, toItems, toText } from './values.js';

export interface InterpreterOptions {
  stdin?: string;
  env?: Record<string, string>;
}

/**
 * The first of the interpreter's three layers (expressions, then pipelines.ts, then interpreter.ts): values
 * and variables. An expression can hold a pipeline or statements ($(...), @(...), { }), which the layers above run.
 */
export abstract class PsExpressions<H> {
  readonly #variables = new Map<string, unknown>();

  constructor(
    protected readonly host: H,
    protected readonly options: InterpreterOptions,
  ) {}

  protected abstract statements(node: Node): unknown[];
  /** Statements where a terminating error goes to the caller (inside try, a script block). */
  protected abstract statementsCatching(block: Node): unknown[];
  protected abstract pipeline(node: Node): unknown[];

  protected assign(node: Node): void {
    const [target, op, value] = [node.child(0), node.child(1), node.child(2)];
    if (!target || !op || !value) throw unsupported(node);
    if (op.text !== '=') throw unsupported(op);
    const result = this.value(value);
    const t = unwrap(target);
    if (t.type === 'variable') this.set(variableName(t), result);
    else if (t.type === 'element_access') {
      const container = this.expr(t.namedChild(0) as Node);
      const key = this.expr(t.namedChild(1) as Node);
      if (container instanceof PsObject) container.set(toText(key), result);
      else if (Array.isArray(container) && typeof key === 'number') container[key] = result;
      else throw new PsTerminatingError('Cannot index into a null array.', 'NullArray', 'InvalidOperation');
    } else if (t.type === 'member_access') {
      const container = this.expr(t.namedChild(0) as Node);
      const name = t.namedChild(1)?.text ?? '';
      if (!(container instanceof PsObject))
        throw new PsTerminatingError(
          `The property '${name}' cannot be found on this object. Verify that the property exists and can be set.`,
          'PropertyAssignmentException',
          'InvalidOperation',
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
    if (n.type === 'assignment_expression') {
      this.assign(n);
      return null;
    }
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
        if (target.type === 'type_literal') return staticMember(this.options.stdin ?? '', target, node.namedChild(1)?.text ?? '');
        return getMember(this.expr(target), node.namedChild(1)?.text ?? '');
      }
      case 'invokation_expression':
        return this.#invoke(node);
      case 'element_access': {
        const container = this.expr(node.namedChild(0) as Node);
        const key = this.expr(node.namedChild(1) as Node);
        if (container instanceof PsObject) return container.get(toText(key)) ?? null;
        if (Array.isArray(container)) return container[Number(key) < 0 ? container.length + Number(key) : Number(key)] ?? null;
        return null;
      }
      case 'script_block_expression':
        return this.#scriptBlock(node);
      case 'command':
      case 'pipeline_chain':
        return collapse(this.pipeline(node));
      case 'expression_with_unary_operator': {
        const op = node.child(0)?.text ?? '';
        return unaryOperator(op, this.expr(node.namedChild(node.namedChildCount - 1) as Node));
      }
      case 'comparison_expression':
      case 'logical_expression':
      case 'additive_expression':
      case 'multiplicative_expression':
      case 'bitwise_expression':
      case 'format_expression': {
        const op = node.child(1)?.text ?? '';
        if (op.toLowerCase() === '-and') return this.truthy(node.child(0) as Node) && this.truthy(node.child(2) as Node);
        if (op.toLowerCase() === '-or') return this.truthy(node.child(0) as Node) || this.truthy(node.child(2) as Node);
        return binaryOperator(op, this.expr(node.child(0) as Node), this.expr(node.child(2) as Node));
      }
      default:
        throw unsupported(node);
    }
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
    const type =
      node
        .namedChild(0)
        ?.text.replace(/^\[|\]$/g, '')
        .toLowerCase() ?? '';
    const operand = node.namedChild(1) as Node;
    const inner = unwrap(operand);
    if (type === 'ordered' && inner.type === 'hash_literal_expression')
      return this.#hashtable(inner, 'System.Collections.Specialized.OrderedDictionary');
    if (type === 'pscustomobject' && inner.type === 'hash_literal_expression')
      return this.#hashtable(inner, 'System.Management.Automation.PSCustomObject');
    const value = this.expr(operand);
    if (type === 'string') return toText(value);
    if (type === 'int' || type === 'int32' || type === 'long') return Math.trunc(Number(toText(value)));
    if (type === 'bool') return isTruthy(value);
    if (type === 'array') return toItems(value);
    throw new PsTerminatingError(`Unable to find type [${type}].`, 'TypeNotFound', 'InvalidOperation');
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
    return {
      kind: 'scriptblock',
      text: node.text.slice(1, -1).trim(),
      invoke: (dollarUnderscore: unknown) => {
        const previous = this.get('_');
        this.set('_', dollarUnderscore);
        try {
          return body ? this.statementsCatching(body) : [];
        } finally {
          this.set('_', previous);
        }
      },
    };
  }

  protected get(name: string): unknown {
    const lower = name.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    if (lower === 'null') return null;
    if (lower.startsWith('env:'))
      return this.options.env?.[Object.keys(this.options.env).find((k) => k.toLowerCase() === lower.slice(4)) ?? ''] ?? null;
    return this.#variables.has(lower) ? this.#variables.get(lower) : null;
  }

  protected set(name: string, value: unknown): void {
    const lower = name.toLowerCase();
    if (['true', 'false', 'null'].includes(lower))
      throw new PsTerminatingError(
        `Cannot overwrite variable ${name} because it is read-only or constant.`,
        'VariableNotWritable',
        'WriteError',
      );
    this.#variables.set(lower, value);
  }
}
