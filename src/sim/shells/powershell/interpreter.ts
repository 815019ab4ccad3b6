// A small PowerShell interpreter over tree-sitter-powershell trees: the subset documented in
// docs/sim-powershell.md. Anything outside it fails loudly, as an unknown command would on Windows.

import type { CommandResult } from '../../command-result.js';
import {
  bindArguments,
  type CmdletContext,
  type CmdletSpec,
  isScriptBlock,
  type NativeSpec,
  type RawArgument,
  type ScriptBlockValue,
} from './commands.js';
import { formatError, notRecognized, PsError, PsExit, PsScriptError, PsTerminatingError } from './errors.js';
import { callMethod, getMember } from './members.js';
import { binaryOperator, unaryOperator } from './operators.js';
import type { Node, Tree } from './parser.js';
import { collapse, formatOutput, isTruthy, PsObject, toItems, toText } from './values.js';

export interface Registry<H> {
  cmdlets: ReadonlyMap<string, CmdletSpec<H>>;
  natives: ReadonlyMap<string, NativeSpec<H>>;
}

/** Node types that only wrap one meaningful child in this grammar. */
const WRAPPERS = new Set([
  'program',
  'pipeline',
  'logical_expression',
  'bitwise_expression',
  'comparison_expression',
  'additive_expression',
  'multiplicative_expression',
  'format_expression',
  'range_expression',
  'array_literal_expression',
  'unary_expression',
  'left_assignment_expression',
  'pipeline_chain',
  'statement_list',
  'expression_with_unary_operator',
  'command_name_expr',
  'integer_literal',
]);

/** Single-quote characters: PowerShell ends a verbatim string at any of them, and a doubled pair is one. */
const SINGLE_QUOTES = /['\u2018\u2019\u201A\u201B]/;

function verbatim(body: string, node: Node): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (SINGLE_QUOTES.test(ch)) {
      // The grammar only knows ASCII quotes; PowerShell would have ended the string at a lone typographic one.
      if (!SINGLE_QUOTES.test(body[i + 1] ?? ''))
        throw new PsScriptError(
          `groundcrew sim: a lone ${ch} inside '${node.text.slice(0, 30)}' ends the string in PowerShell`,
          'NotSupportedBySimulator',
          'ParserError',
        );
      out += body[++i];
    } else out += ch;
  }
  return out;
}

/** Nodes whose named children are statements. */
const BLOCKS = new Set(['program', 'statement_block', 'statement_list', 'script_block', 'script_block_body']);

/** Method arguments have their own precedence chain (logical_argument_expression, ...); it means the same. */
function kind(node: Node): string {
  return node.type.replace('_argument_expression', '_expression');
}

function unwrap(node: Node): Node {
  let current = node;
  while (
    (WRAPPERS.has(kind(current)) || current.type === 'argument_expression') &&
    current.namedChildCount === 1 &&
    current.childCount === 1
  ) {
    current = current.namedChild(0) as Node;
  }
  return current;
}

/** Unwinds the whole script after its error was written; carries the output written before it. */
class ScriptTerminating extends Error {
  partial: unknown[] = [];

  constructor(readonly error: PsError) {
    super(error.message);
  }
}

export class Interpreter<H> {
  readonly #variables = new Map<string, unknown>();
  readonly #out: unknown[] = [];
  #stderr = '';
  #lastFailed = false;
  #source: string[] = [];
  /** The statement being run, for the "At line:" part of error messages. */
  #current: Node | undefined;

  constructor(
    private readonly host: H,
    private readonly registry: Registry<H>,
    private readonly options: { stdin?: string; env?: Record<string, string> } = {},
  ) {
    this.#set('ErrorActionPreference', 'Continue');
    this.#set('LASTEXITCODE', 0);
  }

  run(tree: Tree, source: string): CommandResult {
    this.#source = source.split(/\r?\n/);
    let exitCode: number;
    try {
      this.#out.push(...this.#statements(tree.rootNode));
      exitCode = this.#lastFailed ? 1 : 0;
    } catch (err) {
      if (err instanceof PsExit) exitCode = err.code;
      else if (err instanceof ScriptTerminating) exitCode = 1;
      else throw err;
      this.#out.push(...err.partial);
    }
    return { stdout: formatOutput(this.#out), stderr: this.#stderr, exitCode };
  }

  // ---- statements ----

  #statements(node: Node): unknown[] {
    const out: unknown[] = [];
    const list = BLOCKS.has(node.type) ? node.namedChildren : [node];
    try {
      for (const child of list) {
        if (!child) continue;
        if (child.type === 'statement_list') out.push(...this.#statements(child));
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
    this.#current = node;
    this.#lastFailed = false;
    try {
      return this.#statementUnguarded(node);
    } catch (err) {
      if (err instanceof PsTerminatingError && !(err instanceof PsScriptError) && this.#preference() !== 'Stop') {
        this.#writeError(err, node);
        this.#lastFailed = true;
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
        return this.#statements(node);
      case 'assignment_expression':
        this.#assign(node);
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
        return this.#pipeline(node);
      case 'empty_statement':
        return [];
      default:
        return toItems(this.#expr(node));
    }
  }

  #assign(node: Node): void {
    const [target, op, value] = [node.child(0), node.child(1), node.child(2)];
    if (!target || !op || !value) throw this.#unsupported(node);
    if (op.text !== '=') throw this.#unsupported(op);
    const result = this.#value(value);
    const t = unwrap(target);
    if (t.type === 'variable') this.#set(this.#varName(t), result);
    else if (t.type === 'element_access') {
      const container = this.#expr(t.namedChild(0) as Node);
      const key = this.#expr(t.namedChild(1) as Node);
      if (container instanceof PsObject) container.set(toText(key), result);
      else if (Array.isArray(container) && typeof key === 'number') container[key] = result;
      else throw new PsTerminatingError('Cannot index into a null array.', 'NullArray', 'InvalidOperation');
    } else if (t.type === 'member_access') {
      const container = this.#expr(t.namedChild(0) as Node);
      const name = t.namedChild(1)?.text ?? '';
      if (!(container instanceof PsObject))
        throw new PsTerminatingError(
          `The property '${name}' cannot be found on this object. Verify that the property exists and can be set.`,
          'PropertyAssignmentException',
          'InvalidOperation',
        );
      container.set(name, result);
    } else throw this.#unsupported(t);
  }

  #if(node: Node): unknown[] {
    const condition = node.namedChildren.find(
      (c) => c && c.type !== 'statement_block' && c.type !== 'elseif_clause' && c.type !== 'else_clause',
    );
    const block = node.namedChildren.find((c) => c?.type === 'statement_block');
    if (condition && block && this.#truthy(condition)) return this.#statements(block);
    for (const clause of node.namedChildren) {
      if (clause?.type === 'elseif_clause') {
        const cond = clause.namedChildren.find((c) => c && c.type !== 'statement_block');
        const body = clause.namedChildren.find((c) => c?.type === 'statement_block');
        if (cond && body && this.#truthy(cond)) return this.#statements(body);
      }
      if (clause?.type === 'else_clause') {
        const body = clause.namedChildren.find((c) => c?.type === 'statement_block');
        return body ? this.#statements(body) : [];
      }
    }
    return [];
  }

  #truthy(node: Node): boolean {
    return isTruthy(this.#value(node));
  }

  #foreach(node: Node): unknown[] {
    const named = node.namedChildren.filter((c): c is Node => c !== null);
    const variable = named[0];
    const source = named[1];
    const body = named.find((c) => c.type === 'statement_block');
    if (!variable || !source || !body || variable.type !== 'variable') throw this.#unsupported(node);
    const out: unknown[] = [];
    for (const item of toItems(this.#value(source))) {
      this.#set(this.#varName(variable), item);
      out.push(...this.#statements(body));
    }
    return out;
  }

  #try(node: Node): unknown[] {
    const body = node.namedChildren.find((c) => c?.type === 'statement_block');
    const catchClause = node.namedChildren.find((c) => c?.type === 'catch_clauses' || c?.type === 'catch_clause');
    const handler = catchClause?.type === 'catch_clauses' ? catchClause.namedChild(0) : catchClause;
    if (!body) throw this.#unsupported(node);
    const saved = this.#get('ErrorActionPreference');
    try {
      // Inside try, errors that would terminate a statement are caught by catch, as in PowerShell.
      return this.#statementsCatching(body);
    } catch (err) {
      const error = err instanceof ScriptTerminating ? err.error : err instanceof PsError ? err : undefined;
      if (!error || !handler) throw err;
      this.#set('ErrorActionPreference', saved);
      const record = PsObject.from({ Exception: PsObject.from({ Message: error.message }), FullyQualifiedErrorId: error.errorId });
      const catchBody = handler.namedChildren.find((c) => c?.type === 'statement_block');
      const previous = this.#get('_');
      this.#set('_', record);
      try {
        return catchBody ? this.#statements(catchBody) : [];
      } finally {
        this.#set('_', previous);
      }
    }
  }

  #statementsCatching(block: Node): unknown[] {
    const out: unknown[] = [];
    for (const child of block.namedChildren) {
      if (!child || child.type === 'comment') continue;
      const node = unwrap(child);
      if (BLOCKS.has(node.type)) {
        out.push(...this.#statementsCatching(node));
        continue;
      }
      this.#lastFailed = false;
      out.push(...this.#statementUnguarded(node));
    }
    return out;
  }

  #flow(node: Node): unknown[] {
    const keyword = node.child(0)?.text.toLowerCase();
    const operand = node.namedChildren.find((c) => c !== null);
    if (keyword === 'exit') throw new PsExit(operand ? Number(toText(this.#value(operand))) || 0 : 0);
    if (keyword === 'throw') {
      throw new PsScriptError(operand ? toText(this.#value(operand)) : 'ScriptHalted', 'RuntimeException', 'OperationStopped');
    }
    throw this.#unsupported(node);
  }

  // ---- pipelines and commands ----

  #pipeline(node: Node): unknown[] {
    const stages = node.type === 'pipeline_chain' ? node.namedChildren.filter((c): c is Node => c !== null) : [node];
    let items: unknown[] = [];
    stages.forEach((stage, index) => {
      const s = unwrap(stage);
      if (s.type === 'command') items = this.#command(s, items, index > 0);
      else if (index === 0) items = toItems(this.#expr(s));
      else
        throw new PsTerminatingError(
          'Expressions are only allowed as the first element of a pipeline.',
          'ExpressionsMustBeFirstInPipeline',
          'ParserError',
        );
    });
    return items;
  }

  #command(node: Node, input: unknown[], piped: boolean): unknown[] {
    const nameNode = node.namedChildren.find((c) => c?.type === 'command_name' || c?.type === 'command_name_expr');
    const invoked = node.namedChildren.some((c) => c?.type === 'command_invokation_operator');
    if (!nameNode) throw this.#unsupported(node);
    const name = invoked && unwrap(nameNode).type !== 'command_name' ? toText(this.#expr(unwrap(nameNode))) : nameNode.text;
    const elements = node.namedChildren.find((c) => c?.type === 'command_elements');
    const raw = elements ? this.#rawArguments(elements) : [];

    const cmdlet = this.registry.cmdlets.get(name.toLowerCase());
    if (cmdlet) {
      const args = bindArguments(cmdlet as CmdletSpec<unknown>, raw);
      return cmdlet.run(this.host, args, piped ? input : [], this.#context(cmdlet.name, args));
    }
    const base = name.toLowerCase().replace(/^.*[\\/]/, '');
    const native = this.registry.natives.get(base) ?? this.registry.natives.get(base.replace(/\.exe$/, ''));
    if (native) {
      const argv = raw.flatMap((a) => {
        if (a.parameter !== undefined) return [a.text];
        // A script block given to a program is passed as -encodedCommand ..., which is why '{current}' needs quotes.
        if (isScriptBlock(a.value))
          return [
            '-encodedCommand',
            Buffer.from(a.value.text, 'utf16le').toString('base64'),
            '-inputFormat',
            'xml',
            '-outputFormat',
            'text',
          ];
        return toItems(a.value).map(toText);
      });
      const result = native.run(this.host, argv, this.#context(name, {}));
      this.#set('LASTEXITCODE', result.exitCode);
      if (result.stderr) this.#stderr += result.stderr;
      if (result.exitCode !== 0) this.#lastFailed = true;
      return result.stdout === '' ? [] : result.stdout.replace(/\r?\n$/, '').split(/\r?\n/);
    }
    throw notRecognized(name);
  }

  #rawArguments(elements: Node): RawArgument[] {
    const out: RawArgument[] = [];
    // Separators are whitespace, except the ':' of a colon-bound parameter (-Confirm:$false), which is kept.
    const children = elements.children.filter((c): c is Node => c !== null && c.text.trim() !== '');
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as Node;
      if (child.type === 'command_parameter') {
        const colon = child.text.endsWith(':') || children[i + 1]?.text === ':';
        const parameter = child.text.replace(/^-/, '').replace(/:$/, '');
        if (colon) {
          if (children[i + 1]?.text === ':') i++;
          const valueNode = children[++i];
          out.push({ parameter, colonBound: true, value: valueNode ? this.#expr(unwrap(valueNode)) : undefined, text: child.text });
        } else out.push({ parameter, text: child.text });
      } else if (child.type === 'generic_token') {
        out.push({ value: child.text, text: child.text });
      } else if (child.type === 'redirection' || child.type === 'file_redirection_operator') {
        throw this.#unsupported(child);
      } else {
        out.push({ value: this.#expr(unwrap(child)), text: child.text });
      }
    }
    return out;
  }

  #context(source: string, args: Record<string, unknown>): CmdletContext {
    return {
      stdin: this.options.stdin ?? '',
      command: source,
      error: (err: PsError) => {
        const action = (args.ErrorAction as string | undefined) ?? this.#preference();
        const error = err.source ? err : new PsError(err.message, err.errorId, err.category, source);
        if (action === 'Stop') throw new PsScriptError(error.message, error.errorId, error.category, error.source);
        if (action === 'SilentlyContinue' || action === 'Ignore') return;
        this.#lastFailed = true;
        const at = this.#current;
        const line = (at?.startPosition.row ?? 0) + 1;
        this.#stderr += formatError(error, line, (at?.startPosition.column ?? 0) + 1, this.#source[line - 1] ?? source);
      },
    };
  }

  // ---- expressions ----

  /** A statement used as a value: pipelines collapse to null, one item, or an array. */
  #value(node: Node): unknown {
    const n = unwrap(node);
    if (n.type === 'command' || n.type === 'pipeline_chain') return collapse(this.#pipeline(n));
    if (n.type === 'assignment_expression') {
      this.#assign(n);
      return null;
    }
    return this.#expr(n);
  }

  #expr(raw: Node): unknown {
    const node = unwrap(raw);
    switch (kind(node)) {
      case 'variable':
        return this.#get(this.#varName(node));
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
        return node.namedChildren.filter((c): c is Node => c !== null).map((c) => this.#expr(c));
      case 'array_expression': {
        const inner = node.namedChildren.find((c) => c !== null);
        return inner ? [...this.#statements(inner)] : [];
      }
      case 'parenthesized_expression':
      case 'sub_expression': {
        const inner = node.namedChildren.find((c) => c !== null);
        if (!inner) return null;
        return node.type === 'sub_expression' ? collapse(this.#statements(inner)) : this.#value(inner);
      }
      case 'hash_literal_expression':
        return this.#hashtable(node, 'System.Collections.Hashtable');
      case 'cast_expression':
        return this.#cast(node);
      case 'member_access': {
        const target = node.namedChild(0) as Node;
        if (target.type === 'type_literal') return this.#staticMember(target, node.namedChild(1)?.text ?? '');
        return getMember(this.#expr(target), node.namedChild(1)?.text ?? '');
      }
      case 'invokation_expression':
        return this.#invoke(node);
      case 'element_access': {
        const container = this.#expr(node.namedChild(0) as Node);
        const key = this.#expr(node.namedChild(1) as Node);
        if (container instanceof PsObject) return container.get(toText(key)) ?? null;
        if (Array.isArray(container)) return container[Number(key) < 0 ? container.length + Number(key) : Number(key)] ?? null;
        return null;
      }
      case 'script_block_expression':
        return this.#scriptBlock(node);
      case 'command':
      case 'pipeline_chain':
        return collapse(this.#pipeline(node));
      case 'expression_with_unary_operator': {
        const op = node.child(0)?.text ?? '';
        return unaryOperator(op, this.#expr(node.namedChild(node.namedChildCount - 1) as Node));
      }
      case 'comparison_expression':
      case 'logical_expression':
      case 'additive_expression':
      case 'multiplicative_expression':
      case 'bitwise_expression':
      case 'format_expression': {
        const op = node.child(1)?.text ?? '';
        if (op.toLowerCase() === '-and') return this.#truthy(node.child(0) as Node) && this.#truthy(node.child(2) as Node);
        if (op.toLowerCase() === '-or') return this.#truthy(node.child(0) as Node) || this.#truthy(node.child(2) as Node);
        return binaryOperator(op, this.#expr(node.child(0) as Node), this.#expr(node.child(2) as Node));
      }
      default:
        throw this.#unsupported(node);
    }
  }

  #string(node: Node): string {
    const literal = node.type === 'string_literal' ? (node.child(0) ?? node) : node;
    const text = literal.text;
    if (literal.type === 'verbatim_string_characters') return verbatim(text.slice(1, -1), literal);
    if (literal.type === 'verbatim_here_string_characters') return text.replace(/^@'\r?\n/, '').replace(/\r?\n'@$/, '');
    const here = literal.type === 'expandable_here_string_literal';
    const start = literal.startIndex;
    const body = here ? text.replace(/^@"\r?\n/, '').replace(/\r?\n"@$/, '') : text.slice(1, -1);
    const bodyStart = start + (here ? text.indexOf('\n') + 1 : 1);
    const inserts = literal.namedChildren
      .filter((c): c is Node => c !== null && (c.type === 'variable' || c.type === 'sub_expression'))
      .map((c) => ({ from: c.startIndex - bodyStart, to: c.endIndex - bodyStart, node: c }));
    let out = '';
    let i = 0;
    const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '0': '\0', a: '\x07', '`': '`', '"': '"', $: '$', "'": "'" };
    while (i < body.length) {
      const insert = inserts.find((x) => x.from === i);
      if (insert) {
        const value = insert.node.type === 'variable' ? this.#get(this.#varName(insert.node)) : this.#expr(insert.node);
        out += toText(value);
        i = insert.to;
        continue;
      }
      const ch = body[i] as string;
      if (ch === '`' && i + 1 < body.length) {
        const next = body[i + 1] as string;
        out += ESCAPES[next] ?? next;
        i += 2;
      } else if (ch === '"' && body[i + 1] === '"' && !here) {
        out += '"';
        i += 2;
      } else {
        out += ch;
        i++;
      }
    }
    return out;
  }

  #hashtable(node: Node, typeName: string): PsObject {
    const table = new PsObject(typeName);
    const body = node.namedChildren.find((c) => c?.type === 'hash_literal_body');
    const entries = body ? body.namedChildren : node.namedChildren.filter((c) => c?.type === 'hash_entry');
    for (const entry of entries) {
      if (entry?.type !== 'hash_entry') continue;
      const keyNode = entry.namedChild(0) as Node;
      const key = keyNode.type === 'simple_name' || keyNode.type === 'key_expression' ? keyNode.text : toText(this.#expr(keyNode));
      table.set(key, this.#value(entry.namedChild(1) as Node));
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
    const value = this.#expr(operand);
    if (type === 'string') return toText(value);
    if (type === 'int' || type === 'int32' || type === 'long') return Math.trunc(Number(toText(value)));
    if (type === 'bool') return isTruthy(value);
    if (type === 'array') return toItems(value);
    throw new PsTerminatingError(`Unable to find type [${type}].`, 'TypeNotFound', 'InvalidOperation');
  }

  #invoke(node: Node): unknown {
    const targetNode = node.namedChild(0) as Node;
    const method = node.namedChild(1)?.text ?? '';
    if (targetNode.type === 'type_literal') return this.#staticCall(targetNode, method, this.#arguments(node));
    const target = this.#expr(targetNode);
    const argList = node.namedChildren.find((c) => c?.type === 'argument_list');
    const flatten = (n: Node): Node[] =>
      ['argument_expression_list', 'argument_list', 'argument_expression'].includes(n.type)
        ? n.namedChildren.filter((c): c is Node => c !== null).flatMap(flatten)
        : [n];
    const args = argList ? flatten(argList).map((c) => this.#expr(c)) : [];
    return callMethod(target, method, args);
  }

  #arguments(node: Node): unknown[] {
    const argList = node.namedChildren.find((c) => c?.type === 'argument_list');
    const flatten = (n: Node): Node[] =>
      ['argument_expression_list', 'argument_list', 'argument_expression'].includes(n.type)
        ? n.namedChildren.filter((c): c is Node => c !== null).flatMap(flatten)
        : [n];
    return argList ? flatten(argList).map((c) => this.#expr(c)) : [];
  }

  /** Static .NET methods the roles use: [Convert]::FromBase64String and [IO.File]::WriteAllBytes. */
  #staticCall(type: Node, method: string, args: unknown[]): unknown {
    const name = type.text
      .replace(/^\[|\]$/g, '')
      .toLowerCase()
      .replace(/^system\./, '');
    const call = `${name}::${method.toLowerCase()}`;
    if (call === 'convert::frombase64string') return Buffer.from(toText(args[0]), 'base64');
    if (call === 'io.file::writeallbytes' && Buffer.isBuffer(args[1])) {
      const write = (this.host as { writeBytes?: (path: string, bytes: Buffer) => string | undefined }).writeBytes;
      const problem = write ? write.call(this.host, toText(args[0]), args[1]) : 'not supported on this host';
      if (problem)
        throw new PsTerminatingError(
          `Exception calling "WriteAllBytes" with "2" argument(s): "${problem}"`,
          'DirectoryNotFoundException',
          'NotSpecified',
        );
      return null;
    }
    if (call === 'io.file::writealltext') {
      const write = (this.host as { writeText?: (path: string, text: string) => string | undefined }).writeText;
      const problem = write ? write.call(this.host, toText(args[0]), toText(args[1])) : 'not supported on this host';
      if (problem)
        throw new PsTerminatingError(`Exception calling "WriteAllText" with "2" argument(s): "${problem}"`, 'IOException', 'NotSpecified');
      return null;
    }
    throw this.#unsupported(type);
  }

  /** Static members of .NET types: only [Console]::In (standard input, how secrets arrive) is simulated. */
  #staticMember(type: Node, member: string): unknown {
    const name = type.text.replace(/^\[|\]$/g, '').toLowerCase();
    if ((name === 'console' || name === 'system.console') && member.toLowerCase() === 'in') {
      const stdin = this.options.stdin ?? '';
      return new PsObject('System.IO.TextReader', [['ReadToEnd', { kind: 'method', call: () => stdin }]]);
    }
    throw this.#unsupported(type);
  }

  #scriptBlock(node: Node): ScriptBlockValue {
    const body = node.namedChildren.find((c) => c !== null && c.type !== 'param_block');
    return {
      kind: 'scriptblock',
      text: node.text.slice(1, -1).trim(),
      invoke: (dollarUnderscore: unknown) => {
        const previous = this.#get('_');
        this.#set('_', dollarUnderscore);
        try {
          return body ? this.#statementsCatching(body.type === 'script_block' ? body : body) : [];
        } finally {
          this.#set('_', previous);
        }
      },
    };
  }

  // ---- variables and errors ----

  #varName(node: Node): string {
    return node.text.replace(/^\$\{?|\}$/g, '');
  }

  #get(name: string): unknown {
    const lower = name.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    if (lower === 'null') return null;
    if (lower.startsWith('env:'))
      return this.options.env?.[Object.keys(this.options.env).find((k) => k.toLowerCase() === lower.slice(4)) ?? ''] ?? null;
    return this.#variables.has(lower) ? this.#variables.get(lower) : null;
  }

  #set(name: string, value: unknown): void {
    const lower = name.toLowerCase();
    if (['true', 'false', 'null'].includes(lower))
      throw new PsTerminatingError(
        `Cannot overwrite variable ${name} because it is read-only or constant.`,
        'VariableNotWritable',
        'WriteError',
      );
    this.#variables.set(lower, value);
  }

  #preference(): string {
    return toText(this.#get('ErrorActionPreference'));
  }

  #writeError(err: PsError, node: Node): void {
    const line = node.startPosition.row + 1;
    this.#stderr += formatError(err, line, node.startPosition.column + 1, this.#source[line - 1] ?? '');
  }

  #unsupported(node: Node): PsScriptError {
    return new PsScriptError(
      `groundcrew sim: this PowerShell construct (${node.type}) is outside the simulated subset (docs/sim-powershell.md): ${node.text.slice(0, 60)}`,
      'NotSupportedBySimulator',
      'NotImplemented',
    );
  }
}

export { isScriptBlock };
