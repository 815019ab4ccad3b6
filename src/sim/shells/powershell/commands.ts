// Cmdlets and native programs the simulator knows, and how arguments bind to their parameters.

import { type PsError, PsTerminatingError, PsUnmodelled } from './errors.js';
import { PsObject, toText } from './values.js';

export type ParamType = 'string' | 'string[]' | 'switch' | 'int' | 'object' | 'scriptblock';

export interface ParamSpec {
  type: ParamType;
  position?: number;
  /** ValueFromRemainingArguments: the positional arguments left over, bound together as one array. */
  remaining?: boolean;
  aliases?: string[];
  mandatory?: boolean;
  /** ValidateSet: the values PowerShell accepts (case-insensitive). */
  values?: readonly string[];
}

/** A script block argument ({ ... }); the interpreter knows how to run it with $_ set. */
export interface ScriptBlockValue {
  readonly kind: 'scriptblock';
  readonly text: string;
  invoke(dollarUnderscore: unknown): unknown[];
}

export function isScriptBlock(value: unknown): value is ScriptBlockValue {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'scriptblock';
}

export interface CmdletContext {
  /** A non-terminating error: honours -ErrorAction and $ErrorActionPreference. */
  error(err: PsError): void;
  readonly stdin: string;
  /** The name the command was invoked by, as written (`C:\\k\\kubelet.exe` for a native run by its path). */
  readonly command?: string;
}

export type BoundArgs = Record<string, unknown>;

export interface CmdletSpec<H> {
  name: string;
  params: Record<string, ParamSpec>;
  supportsShouldProcess?: boolean;
  /**
   * Every parameter name and alias the real cmdlet has (lower case), where known (the cmdlet catalogue): a call
   * using one the simulator does not model is refused by name, not answered with "a parameter cannot be found".
   */
  documented?: ReadonlySet<string>;
  /** Whether this host has the cmdlet now (its module installed or imported); without it, "not recognized". */
  available?(host: H): boolean;
  run(host: H, args: BoundArgs, input: unknown[], ctx: CmdletContext): unknown[];
}

export interface NativeResult {
  stdout: string;
  stderr?: string;
  exitCode: number;
  /**
   * A GUI-subsystem program (msiexec): run as the last command of its pipeline, PowerShell starts it and does not
   * wait, so $LASTEXITCODE and $? are left as they were (NativeCommandProcessor.cs, _isRunningInBackground).
   */
  background?: boolean;
}

export interface NativeSpec<H> {
  /** Names it answers to, lower case, with and without .exe. */
  names: string[];
  run(host: H, argv: string[], ctx: CmdletContext): NativeResult;
}

/** What a host's shell knows: its cmdlets by lower-case name, its programs by every name they answer to. */
export interface Registry<H> {
  cmdlets: ReadonlyMap<string, CmdletSpec<H>>;
  natives: ReadonlyMap<string, NativeSpec<H>>;
}

const COMMON: Record<string, ParamSpec> = {
  ErrorAction: { type: 'string', aliases: ['ea'], values: ['Stop', 'Continue', 'SilentlyContinue', 'Ignore', 'Inquire'] },
  WarningAction: { type: 'string', aliases: ['wa'] },
  Verbose: { type: 'switch', aliases: ['vb'] },
  Debug: { type: 'switch', aliases: ['db'] },
};
const SHOULD_PROCESS: Record<string, ParamSpec> = {
  Confirm: { type: 'switch', aliases: ['cf'] },
  WhatIf: { type: 'switch', aliases: ['wi'] },
};

export interface RawArgument {
  /** Set for `-Name` elements; `value` then holds a colon-bound value (`-Confirm:$false`) if any. */
  parameter?: string;
  colonBound?: boolean;
  value?: unknown;
  /** The source text, for messages. */
  text: string;
}

/** A parameter binding failure, as PowerShell reports it for cmdlets and functions alike. */
export function bindingError(command: string, message: string, id: string): PsTerminatingError {
  return new PsTerminatingError(
    message,
    `${id},${command}`,
    'InvalidArgument: (:) [], ParameterBindingException',
    command,
    'System.Management.Automation.ParameterBindingException',
  );
}

/**
 * The parameter a given name means, as the binder reads it: the exact name (or alias), else the one name it is
 * a prefix of; two such names are ambiguous (an error). Undefined when none matches.
 */
export function matchParameterName(
  command: string,
  names: readonly string[],
  given: string,
  aliases: (name: string) => readonly string[] = () => [],
): string | undefined {
  const lower = given.toLowerCase();
  const exact = names.find((n) => n.toLowerCase() === lower || aliases(n).some((a) => a.toLowerCase() === lower));
  if (exact) return exact;
  const prefixed = names.filter((n) => n.toLowerCase().startsWith(lower));
  if (prefixed.length > 1)
    throw bindingError(
      command,
      `Parameter cannot be processed because the parameter name '${given}' is ambiguous. Possible matches include: ${prefixed.map((p) => `-${p}`).join(' ')}.`,
      'AmbiguousParameter',
    );
  return prefixed[0];
}

function convert(cmdlet: string, name: string, spec: ParamSpec, value: unknown): unknown {
  switch (spec.type) {
    case 'switch':
      return value === undefined ? true : Boolean(value);
    case 'string': {
      if (Array.isArray(value)) {
        if (value.length !== 1)
          throw bindingError(
            cmdlet,
            `Cannot convert 'System.Object[]' to the type 'System.String' required by parameter '${name}'. Specified method is not supported.`,
            'CannotConvertArgument',
          );
        return toText(value[0]);
      }
      return toText(value);
    }
    case 'string[]':
      return (Array.isArray(value) ? value : [value]).map(toText);
    case 'int': {
      const n = Number(toText(value));
      if (!Number.isInteger(n))
        throw bindingError(
          cmdlet,
          `Cannot process argument transformation on parameter '${name}'. Cannot convert value "${toText(value)}" to type "System.Int32".`,
          'ParameterArgumentTransformationError',
        );
      return n;
    }
    case 'scriptblock':
      if (!isScriptBlock(value))
        throw bindingError(
          cmdlet,
          `Cannot convert the "${toText(value)}" value of type "System.String" to type "System.Management.Automation.ScriptBlock".`,
          'CannotConvertArgumentNoMessage',
        );
      return value;
    default:
      return value;
  }
}

/** PowerShell's parameter binder, reduced: names, unique prefixes, aliases, switches, positions, ValidateSet. */
export function bindArguments(spec: CmdletSpec<unknown>, raw: RawArgument[]): BoundArgs {
  const params: Record<string, ParamSpec> = { ...spec.params, ...COMMON, ...(spec.supportsShouldProcess ? SHOULD_PROCESS : {}) };
  const names = Object.keys(params);
  const resolve = (given: string): string => {
    const name = matchParameterName(spec.name, names, given, (n) => params[n]?.aliases ?? []);
    if (name !== undefined) return name;
    const lower = given.toLowerCase();
    if (spec.documented && [...spec.documented].some((d) => d.startsWith(lower)))
      throw new PsUnmodelled(`groundcrew sim: the parameter -${given} of ${spec.name} is outside the simulated subset`, spec.name);
    throw bindingError(spec.name, `A parameter cannot be found that matches parameter name '${given}'.`, 'NamedParameterNotFound');
  };

  const bound: BoundArgs = {};
  const positional: RawArgument[] = [];
  for (let i = 0; i < raw.length; i++) {
    const arg = raw[i] as RawArgument;
    if (arg.parameter === undefined) {
      positional.push(arg);
      continue;
    }
    const name = resolve(arg.parameter);
    const p = params[name] as ParamSpec;
    if (name in bound)
      throw bindingError(
        spec.name,
        `Cannot bind parameter because parameter '${name}' is specified more than once.`,
        'ParameterAlreadyBound',
      );
    if (arg.colonBound) {
      bound[name] = convert(spec.name, name, p, arg.value);
    } else if (p.type === 'switch') {
      bound[name] = true;
    } else {
      const next = raw[i + 1];
      if (!next || next.parameter !== undefined) {
        throw bindingError(
          spec.name,
          `Missing an argument for parameter '${name}'. Specify a parameter of type '${p.type === 'string[]' ? 'System.String[]' : p.type === 'int' ? 'System.Int32' : 'System.String'}' and try again.`,
          'MissingArgument',
        );
      }
      bound[name] = convert(spec.name, name, p, next.value);
      i++;
    }
  }
  const byPosition = names
    .filter((n) => params[n]?.position !== undefined && !(n in bound))
    .sort((a, b) => (params[a]?.position ?? 0) - (params[b]?.position ?? 0));
  for (const [index, arg] of positional.entries()) {
    const name = byPosition.shift();
    if (name && params[name]?.remaining && index < positional.length - 1) {
      bound[name] = positional.slice(index).flatMap((a) => (Array.isArray(a.value) ? a.value : [a.value]));
      break;
    }
    if (!name)
      throw bindingError(
        spec.name,
        `A positional parameter cannot be found that accepts argument '${arg.text}'.`,
        'PositionalParameterNotFound',
      );
    bound[name] = convert(spec.name, name, params[name] as ParamSpec, arg.value);
  }
  const missing = Object.entries(spec.params)
    .filter(([name, p]) => p.mandatory && !(name in bound))
    .map(([name]) => name);
  if (missing.length > 0) {
    throw bindingError(
      spec.name,
      `Cannot process command because of one or more missing mandatory parameters: ${missing.join(' ')}.`,
      'MissingMandatoryParameter',
    );
  }
  for (const [name, p] of Object.entries(params)) {
    const value = bound[name];
    if (p.values && value !== undefined) {
      // Each element of an array parameter is validated on its own, as ValidateSet does.
      const matches = (Array.isArray(value) ? value : [value]).map((item) => {
        const match = p.values?.find((v) => v.toLowerCase() === toText(item).toLowerCase());
        if (!match)
          throw bindingError(
            spec.name,
            `Cannot validate argument on parameter '${name}'. The argument "${toText(item)}" does not belong to the set "${p.values?.join(',')}" specified by the ValidateSet attribute. Supply an argument that is in the set and then try the command again.`,
            'ParameterArgumentValidationError',
          );
        return match;
      });
      bound[name] = Array.isArray(value) ? matches : matches[0];
    }
  }
  refuseShouldProcess(spec.name, bound);
  return bound;
}

/**
 * -WhatIf, and -Confirm asking for a prompt, change what a ShouldProcess cmdlet does (nothing, and a "What if:"
 * line whose wording is the cmdlet's own; a prompt, which a -NonInteractive powershell.exe cannot show): the
 * simulator models neither, so it refuses rather than make the change (about_CommonParameters).
 */
export function refuseShouldProcess(command: string, bound: BoundArgs): void {
  for (const name of ['WhatIf', 'Confirm'])
    if (bound[name] === true)
      throw new PsUnmodelled(`groundcrew sim: -${name} on ${command} (ShouldProcess) is outside the simulated subset`, command);
}

/** Shorthand for cmdlets: a PSCustomObject from a plain record. */
export const obj = (record: Record<string, unknown>, typeName?: string): PsObject => PsObject.from(record, typeName);
