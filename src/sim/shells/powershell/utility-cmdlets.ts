// Host-independent cmdlets: selecting, filtering, converting and writing pipeline objects.

import { type CmdletSpec, isScriptBlock, type ScriptBlockValue } from './commands.js';
import { PsError, PsUnmodelled } from './errors.js';
import { callMethod, getMember } from './members.js';
import { binaryOperator } from './operators.js';
import { fromJson, isTruthy, PsObject, toItems, toJson, toText } from './values.js';

type Spec = CmdletSpec<unknown>;

const selectObject: Spec = {
  name: 'Select-Object',
  params: {
    Property: { type: 'object', position: 0 },
    ExpandProperty: { type: 'string' },
    First: { type: 'int' },
    InputObject: { type: 'object' },
  },
  run(_host, args, input, ctx) {
    let items = args.InputObject !== undefined ? toItems(args.InputObject) : input;
    if (typeof args.First === 'number') items = items.slice(0, args.First);
    const expand = args.ExpandProperty;
    if (typeof expand === 'string')
      return items.flatMap((item) => {
        if (item instanceof PsObject && !item.has(expand)) {
          ctx.error(
            new PsError(
              `Property "${expand}" cannot be found.`,
              'ExpandPropertyNotFound,Microsoft.PowerShell.Commands.SelectObjectCommand',
              `InvalidArgument: (${toText(item)}:PSObject) [Select-Object], PSArgumentException`,
              'Select-Object',
            ),
          );
          return [];
        }
        return toItems(getMember(item, expand));
      });
    if (args.Property === undefined) return items;
    const names = toItems(args.Property).map((p) => {
      if (p instanceof PsObject || isScriptBlock(p))
        throw new PsUnmodelled('groundcrew sim: Select-Object with a calculated property', 'Select-Object');
      return toText(p);
    });
    return items.map(
      (item) =>
        new PsObject(
          undefined,
          names.map((n) => [n, getMember(item, n)]),
        ),
    );
  },
};

/** Where-Object's comparison switches (the simplified syntax, `Where-Object Name -eq 'x'`). */
const WHERE_OPERATORS = [
  'EQ',
  'NE',
  'GT',
  'GE',
  'LT',
  'LE',
  'Like',
  'NotLike',
  'Match',
  'NotMatch',
  'Contains',
  'NotContains',
  'In',
  'NotIn',
];

const whereObject: Spec = {
  name: 'Where-Object',
  // Position 0 is -Property in the comparison sets and -FilterScript in the script block set: one parameter here,
  // told apart by what it is given, so the call fits the set PowerShell would choose (cmdlet catalogue).
  params: {
    Property: { type: 'object', position: 0 },
    FilterScript: { type: 'scriptblock' },
    Value: { type: 'object', position: 1 },
    InputObject: { type: 'object' },
    ...Object.fromEntries(WHERE_OPERATORS.map((op) => [op, { type: 'switch' } as const])),
  },
  run(_host, args, input) {
    const filter = args.FilterScript ?? (isScriptBlock(args.Property) ? args.Property : undefined);
    if (isScriptBlock(filter)) return input.filter((item) => isTruthy(filter.invoke(item).at(-1)));
    const ops = WHERE_OPERATORS.filter((op) => args[op] === true);
    if (args.Property === undefined || ops.length !== 1)
      throw new PsUnmodelled('groundcrew sim: Where-Object needs a script block or one comparison (Name -eq value)', 'Where-Object');
    const property = toText(args.Property);
    return input.filter((item) => isTruthy(binaryOperator(`-${ops[0]}`, getMember(item, property), args.Value ?? true)));
  },
};

const forEachObject: Spec = {
  name: 'ForEach-Object',
  params: {
    Process: { type: 'object', position: 0 },
    Begin: { type: 'scriptblock' },
    End: { type: 'scriptblock' },
    MemberName: { type: 'string' },
  },
  run(_host, args, input) {
    const block = (name: string) => (isScriptBlock(args[name]) ? (args[name] as ScriptBlockValue).invoke(null) : []);
    if (isScriptBlock(args.Process))
      return [...block('Begin'), ...input.flatMap((item) => (args.Process as ScriptBlockValue).invoke(item)), ...block('End')];
    if (Array.isArray(args.Process))
      throw new PsUnmodelled('groundcrew sim: ForEach-Object with several -Process blocks', 'ForEach-Object');
    // -MemberName: a property's value, or a method called with no arguments (ForEach-Object.md).
    const member = (args.MemberName as string | undefined) ?? toText(args.Process);
    return input.flatMap((item) => {
      const value = item instanceof PsObject || Array.isArray(item) ? getMember(item, member) : propertyOrMethod(item, member);
      return toItems(value);
    });
  },
};

/** A string's or number's member by name: Length, else a method taking no arguments (ToUpper), else refused. */
function propertyOrMethod(item: unknown, member: string): unknown {
  const value = getMember(item, member);
  return value !== null ? value : callMethod(item, member, []);
}

const convertToJson: Spec = {
  name: 'ConvertTo-Json',
  params: { InputObject: { type: 'object', position: 0 }, Depth: { type: 'int' }, Compress: { type: 'switch' } },
  run(_host, args, input) {
    const items = args.InputObject !== undefined ? [args.InputObject] : input;
    if (items.length === 0) return [];
    const value = items.length === 1 ? items[0] : items;
    // 5.1 indents objects and arrays with its own layout (four spaces, two after each colon: PowerShell/PowerShell
    // issue 8604), not modelled; a scalar is one line either way. The roles always -Compress.
    if (!args.Compress && (Array.isArray(value) || value instanceof PsObject))
      throw new PsUnmodelled('groundcrew sim: ConvertTo-Json without -Compress (its indented layout)', 'ConvertTo-Json');
    return [toJson(value, (args.Depth as number | undefined) ?? 2)];
  },
};

const convertFromJson: Spec = {
  name: 'ConvertFrom-Json',
  params: { InputObject: { type: 'string', position: 0 } },
  run(_host, args, input, ctx) {
    const text = args.InputObject !== undefined ? toText(args.InputObject) : input.map(toText).join('\n');
    try {
      return toItems(fromJson(JSON.parse(text)));
    } catch {
      ctx.error(
        new PsError(
          'Invalid JSON primitive.',
          'System.ArgumentException,Microsoft.PowerShell.Commands.ConvertFromJsonCommand',
          'NotSpecified: (:) [ConvertFrom-Json], ArgumentException',
        ),
      );
      return [];
    }
  },
};

const writeOutput: Spec = {
  name: 'Write-Output',
  params: { InputObject: { type: 'object', position: 0, remaining: true }, NoEnumerate: { type: 'switch' } },
  run: (_host, args, input) => (args.InputObject !== undefined ? toItems(args.InputObject) : input),
};

// Write-Host writes to the host at once, beside the pipeline (an assignment does not capture it, output and
// host text interleave as they happen): the simulator keeps one output stream, so it refuses it.
const writeHost: Spec = {
  name: 'Write-Host',
  params: { Object: { type: 'object', position: 0, remaining: true }, NoNewline: { type: 'switch' } },
  run: () => {
    throw new PsUnmodelled('groundcrew sim: Write-Host (the host, apart from the pipeline)', 'Write-Host');
  },
};

const outNull: Spec = { name: 'Out-Null', params: { InputObject: { type: 'object' } }, run: () => [] };

const sortObject: Spec = {
  name: 'Sort-Object',
  // -Property is Object[] (Sort-Object.md): property names, compared in order.
  params: { Property: { type: 'object', position: 0 }, Descending: { type: 'switch' } },
  run(_host, args, input) {
    const properties = args.Property === undefined ? [] : [args.Property].flat().map((p) => toText(p));
    const keys = (item: unknown) => (properties.length === 0 ? [item] : properties.map((p) => getMember(item, p)));
    const compare = (a: unknown, b: unknown) => {
      const [x, y] = [keys(a), keys(b)];
      for (let i = 0; i < x.length; i++) {
        const order = sortOrder(x[i], y[i]);
        if (order !== 0) return order;
      }
      return 0;
    };
    const sorted = [...input].sort(compare);
    return args.Descending ? sorted.reverse() : sorted;
  },
};

/** Numbers as numbers, anything else as text, case-insensitively (equal keys keep their order). */
function sortOrder(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return toText(a).localeCompare(toText(b), 'en', { sensitivity: 'accent' });
}

export const UTILITY_CMDLETS: Spec[] = [
  selectObject,
  whereObject,
  forEachObject,
  convertToJson,
  convertFromJson,
  writeOutput,
  writeHost,
  outNull,
  sortObject,
];
