// Host-independent cmdlets: selecting, filtering, converting and writing pipeline objects.

import { type CmdletSpec, isScriptBlock, type ScriptBlockValue } from './commands.js';
import { PsError, PsUnmodelled } from './errors.js';
import { getMember } from './members.js';
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
  run(_host, args, input) {
    let items = args.InputObject !== undefined ? toItems(args.InputObject) : input;
    if (typeof args.First === 'number') items = items.slice(0, args.First);
    if (typeof args.ExpandProperty === 'string') return items.flatMap((item) => toItems(getMember(item, args.ExpandProperty as string)));
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
  params: {
    FilterScript: { type: 'object', position: 0 },
    Value: { type: 'object', position: 1 },
    InputObject: { type: 'object' },
    ...Object.fromEntries(WHERE_OPERATORS.map((op) => [op, { type: 'switch' } as const])),
  },
  run(_host, args, input) {
    const filter = args.FilterScript;
    if (isScriptBlock(filter)) return input.filter((item) => isTruthy(filter.invoke(item).at(-1)));
    const ops = WHERE_OPERATORS.filter((op) => args[op] === true);
    if (filter === undefined || ops.length !== 1)
      throw new PsUnmodelled('groundcrew sim: Where-Object needs a script block or one comparison (Name -eq value)', 'Where-Object');
    const property = toText(filter);
    return input.filter((item) => isTruthy(binaryOperator(`-${ops[0]}`, getMember(item, property), args.Value ?? true)));
  },
};

const forEachObject: Spec = {
  name: 'ForEach-Object',
  params: { Process: { type: 'object', position: 0 }, MemberName: { type: 'string' } },
  run(_host, args, input) {
    if (isScriptBlock(args.Process)) return input.flatMap((item) => (args.Process as ScriptBlockValue).invoke(item));
    const member = (args.MemberName as string | undefined) ?? toText(args.Process);
    return input.flatMap((item) => toItems(getMember(item, member)));
  },
};

const convertToJson: Spec = {
  name: 'ConvertTo-Json',
  params: { InputObject: { type: 'object', position: 0 }, Depth: { type: 'int' }, Compress: { type: 'switch' } },
  run(_host, args, input) {
    const items = args.InputObject !== undefined ? [args.InputObject] : input;
    if (items.length === 0) return [];
    const value = items.length === 1 ? items[0] : items;
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
          'NotSpecified',
        ),
      );
      return [];
    }
  },
};

const writeOutput: Spec = {
  name: 'Write-Output',
  params: { InputObject: { type: 'object', position: 0 }, NoEnumerate: { type: 'switch' } },
  run: (_host, args, input) => (args.InputObject !== undefined ? toItems(args.InputObject) : input),
};

const writeHost: Spec = {
  name: 'Write-Host',
  params: { Object: { type: 'object', position: 0 }, NoNewline: { type: 'switch' } },
  run: (_host, args) => [toText(args.Object)],
};

const outNull: Spec = { name: 'Out-Null', params: { InputObject: { type: 'object' } }, run: () => [] };

const sortObject: Spec = {
  name: 'Sort-Object',
  // -Property is Object[] (Sort-Object.md): property names, compared in order.
  params: { Property: { type: 'object', position: 0 }, Descending: { type: 'switch' } },
  run(_host, args, input) {
    const properties = args.Property === undefined ? [] : [args.Property].flat().map((p) => toText(p));
    const keys = (item: unknown) => (properties.length === 0 ? [toText(item)] : properties.map((p) => toText(getMember(item, p))));
    const compare = (a: unknown, b: unknown) => {
      const [x, y] = [keys(a), keys(b)];
      for (let i = 0; i < x.length; i++) {
        const order = (x[i] as string).localeCompare(y[i] as string);
        if (order !== 0) return order;
      }
      return 0;
    };
    const sorted = [...input].sort(compare);
    return args.Descending ? sorted.reverse() : sorted;
  },
};

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
