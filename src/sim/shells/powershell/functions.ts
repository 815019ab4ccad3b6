// Script functions (about_Functions, about_Functions_Advanced_Parameters): their parameters from param() or
// `function f($a, $b)`, and how a call's arguments bind to them: by name (a unique prefix will do), -Name:value,
// [switch], then by position; what is left is $args.

import { bindingError, matchParameterName, type RawArgument } from './commands.js';
import type { Node } from './parser.js';
import { notModelled, unsupported, variableName } from './syntax.js';

export interface FunctionParam {
  name: string;
  /** The type in [type]$name, lower case, if any. */
  type: string | undefined;
  mandatory: boolean;
  defaultValue: Node | undefined;
}

export interface FunctionDef {
  name: string;
  params: FunctionParam[];
  /** The statements of the body (script_block_body), or undefined for an empty body. */
  body: Node | undefined;
  /** [CmdletBinding()] or [Parameter()]: the common parameters (-ErrorAction, ...) bind too. */
  advanced: boolean;
}

function scriptParameter(node: Node): { param: FunctionParam; advanced: boolean } {
  const variable = node.namedChildren.find((c) => c?.type === 'variable');
  if (!variable) throw unsupported(node);
  let type: string | undefined;
  let mandatory = false;
  let advanced = false;
  for (const attribute of node.namedChildren.find((c) => c?.type === 'attribute_list')?.namedChildren ?? []) {
    if (!attribute) continue;
    const typeLiteral = attribute.namedChildren.find((c) => c?.type === 'type_literal');
    if (typeLiteral) {
      type = typeLiteral.text.replace(/^\[|\]$/g, '').toLowerCase();
      continue;
    }
    const name = attribute.namedChildren.find((c) => c?.type === 'attribute_name')?.text.toLowerCase();
    if (name === 'parameter') {
      advanced = true;
      for (const arg of attribute.namedChildren.find((c) => c?.type === 'attribute_arguments')?.namedChildren ?? []) {
        const argName = arg?.namedChild(0)?.text.toLowerCase();
        if (argName === 'mandatory') mandatory = !/\$false\s*$/i.test(arg?.text ?? '');
        else if (argName !== 'position' && argName !== 'valuefrompipeline') throw unsupported(arg as Node, 'a [Parameter()] argument');
      }
    } else if (name?.startsWith('validate') || name === 'alias' || name === 'allownull' || name === 'allowemptystring') {
      throw unsupported(attribute, `the parameter attribute [${name}()]`);
    } else throw unsupported(attribute, 'a parameter attribute');
  }
  const defaultValue = node.namedChildren.find((c) => c?.type === 'script_parameter_default')?.namedChildren.find((c) => c !== null);
  return { param: { name: variableName(variable), type, mandatory, defaultValue: defaultValue ?? undefined }, advanced };
}

/** A function_statement as a definition; `begin`/`process`/`end` blocks and `filter` are refused. */
export function functionDefinition(node: Node): FunctionDef {
  if (/^filter\b/i.test(node.text)) throw unsupported(node, 'a filter');
  const name = node.namedChildren.find((c) => c?.type === 'function_name')?.text ?? '';
  const block = node.namedChildren.find((c) => c?.type === 'script_block');
  const body = block?.namedChildren.find((c) => c?.type === 'script_block_body') ?? undefined;
  if (body?.namedChildren.some((c) => c?.type === 'named_block_list')) throw unsupported(node, 'begin/process/end blocks');
  const paramBlock = block?.namedChildren.find((c) => c?.type === 'param_block');
  const inline = node.namedChildren.find((c) => c?.type === 'function_parameter_declaration');
  const list = (paramBlock ?? inline)?.namedChildren.find((c) => c?.type === 'parameter_list');
  let advanced = paramBlock?.namedChildren.some((c) => c?.type === 'attribute_list' && /cmdletbinding/i.test(c.text)) ?? false;
  const params: FunctionParam[] = [];
  for (const p of list?.namedChildren ?? []) {
    if (p?.type !== 'script_parameter') continue;
    const parsed = scriptParameter(p);
    params.push(parsed.param);
    advanced ||= parsed.advanced;
  }
  return { name, params, body, advanced };
}

const COMMON = ['ErrorAction', 'WarningAction', 'Verbose', 'Debug'];

/** Binds a call's arguments: parameter name -> value (switches true/false), plus what is left for $args. */
export function bindFunction(def: FunctionDef, raw: RawArgument[]): { bound: Map<string, unknown>; rest: unknown[] } {
  const names = [...def.params.map((p) => p.name), ...(def.advanced ? COMMON : [])];
  const bound = new Map<string, unknown>();
  const rest: unknown[] = [];
  const positional: RawArgument[] = [];
  for (let i = 0; i < raw.length; i++) {
    const arg = raw[i] as RawArgument;
    if (arg.parameter === undefined) {
      positional.push(arg);
      continue;
    }
    const name = matchParameterName(def.name, names, arg.parameter);
    if (name === undefined) {
      if (def.advanced)
        throw bindingError(
          def.name,
          `A parameter cannot be found that matches parameter name '${arg.parameter}'.`,
          'NamedParameterNotFound',
        );
      // A simple function takes an unknown -Name, and the argument after it, as arguments in $args.
      rest.push(arg.text);
      const next = raw[i + 1];
      if (!arg.colonBound && next && next.parameter === undefined) {
        rest.push(next.value);
        i++;
      } else if (arg.colonBound) throw notModelled(`the unknown parameter -${arg.parameter}: of the simple function ${def.name}`);
      continue;
    }
    const param = def.params.find((p) => p.name === name);
    const isSwitch = param ? param.type === 'switch' : name === 'Verbose' || name === 'Debug';
    if (arg.colonBound) bound.set(name, arg.value);
    else if (isSwitch) bound.set(name, true);
    else {
      const next = raw[i + 1];
      if (!next || next.parameter !== undefined)
        throw bindingError(
          def.name,
          `Missing an argument for parameter '${name}'. Specify a parameter of type '${param?.type ? `System.${param.type}` : 'System.Object'}' and try again.`,
          'MissingArgument',
        );
      bound.set(name, next.value);
      i++;
    }
  }
  const open = def.params.filter((p) => !bound.has(p.name) && p.type !== 'switch');
  for (const arg of positional) {
    const param = open.shift();
    if (param) bound.set(param.name, arg.value);
    else if (def.advanced)
      throw bindingError(
        def.name,
        `A positional parameter cannot be found that accepts argument '${arg.text}'.`,
        'PositionalParameterNotFound',
      );
    else rest.push(arg.value);
  }
  const missing = def.params.filter((p) => p.mandatory && !bound.has(p.name)).map((p) => p.name);
  if (missing.length > 0)
    throw bindingError(
      def.name,
      `Cannot process command because of one or more missing mandatory parameters: ${missing.join(' ')}.`,
      'MissingMandatoryParameter',
    );
  return { bound, rest };
}
