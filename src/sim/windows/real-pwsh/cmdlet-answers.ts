// The simulated host's side of the real-pwsh bridge: a cmdlet call from the module's functions (their bound
// parameters and pipeline input) answered by the same CmdletSpec.run the TypeScript interpreter calls, and a
// native program's argv answered by its NativeSpec. Errors go back with what real pwsh needs to build the record.

import type { BoundArgs, CmdletSpec, NativeResult, NativeSpec, ParamSpec, Registry } from '../../shells/powershell/commands.js';
import { NOT_MODELLED_ID, PsError, PsTerminatingError, PsUnmodelled } from '../../shells/powershell/errors.js';
import { toText } from '../../shells/powershell/values.js';
import type { WindowsHost } from '../windows-host.js';
import { fromWire, type KeepMethod, toWire, type Wire } from './wire-values.js';

export interface CmdletRequest {
  name: string;
  args: Record<string, Wire>;
  input: Wire[];
}

/** An error as real pwsh's ErrorRecord takes it (real-pwsh-runtime.ps1's GcErrorRecord builds it). */
export interface WireError {
  message: string;
  errorId: string;
  category: string;
  activity: string;
  reason: string;
  targetName: string;
  exceptionType: string | null;
}

export interface CmdletAnswer {
  /** Output and non-terminating errors in the order the cmdlet produced them. */
  events: ({ out: Wire } | { error: WireError })[];
  terminating?: WireError;
  /** What the simulator does not model: real pwsh ends the script with this on stderr (no catch may hide it). */
  refused?: string;
}

/** "ObjectNotFound: (name:String) [Get-Service], ServiceCommandException" taken apart. */
export function wireError(err: PsError): WireError {
  const m = /^(\w+)(?::\s*\(([^:]*)(?::\w+)?\)\s*\[([^\]]*)\],\s*(\w+))?/.exec(err.category);
  return {
    message: err.message,
    errorId: err.errorId,
    category: m?.[1] ?? 'NotSpecified',
    targetName: m?.[2] ?? '',
    activity: m?.[3] ?? '',
    reason: m?.[4] ?? '',
    exceptionType: err.exceptionType ?? null,
  };
}

/** The sim parameter a name pwsh bound means: its name or one of its aliases (the sim folds LiteralPath into Path). */
function simParameter(spec: CmdletSpec<WindowsHost>, given: string): [string, ParamSpec] | undefined {
  const lower = given.toLowerCase();
  return Object.entries(spec.params).find(([name, p]) => name.toLowerCase() === lower || p.aliases?.some((a) => a.toLowerCase() === lower));
}

/** A value pwsh bound, in the shape the sim's binder would have given the cmdlet. */
function coerce(p: ParamSpec, value: unknown): unknown {
  switch (p.type) {
    case 'switch':
      return Boolean(value);
    case 'string':
      return Array.isArray(value) ? toText(value[0]) : toText(value);
    case 'string[]':
      return (Array.isArray(value) ? value : [value]).map(toText);
    case 'int':
      return Number(Array.isArray(value) ? value[0] : value);
    default:
      return value;
  }
}

function containsScriptBlock(wire: Wire): boolean {
  if (wire === null || typeof wire !== 'object') return false;
  if (Array.isArray(wire)) return wire.some(containsScriptBlock);
  return typeof wire.$sb === 'string' || Object.values(wire).some(containsScriptBlock);
}

export function answerCmdlet(host: WindowsHost, registry: Registry<WindowsHost>, request: CmdletRequest, keep?: KeepMethod): CmdletAnswer {
  const spec = registry.cmdlets.get(request.name.toLowerCase());
  if (!spec) return { events: [], refused: `groundcrew sim: the cmdlet ${request.name} is not modelled (docs/simulator.md)` };
  const args: BoundArgs = {};
  let input = request.input;
  for (const [given, wire] of Object.entries(request.args)) {
    const param = simParameter(spec, given);
    // -InputObject where the simulated cmdlet takes those objects as piped input (Stop-Service's default set binds
    // a positional 'docker' to -InputObject; on Windows ServiceController's string constructor makes it a service).
    if (!param && given.toLowerCase() === 'inputobject' && input.length === 0) {
      input = Array.isArray(wire) ? wire : [wire];
      continue;
    }
    if (!param) return { events: [], refused: `groundcrew sim: -${given} of ${spec.name} is not modelled (docs/simulator.md)` };
    if (containsScriptBlock(wire))
      return { events: [], refused: `groundcrew sim: a script block for -${given} of ${spec.name} is not modelled` };
    args[param[0]] = coerce(param[1], fromWire(wire));
  }
  if (input.some(containsScriptBlock))
    return { events: [], refused: `groundcrew sim: a script block piped to ${spec.name} is not modelled` };
  const events: CmdletAnswer['events'] = [];
  try {
    const ctx = {
      stdin: '',
      command: spec.name,
      error(err: PsError) {
        if (err instanceof PsUnmodelled || err.errorId === NOT_MODELLED_ID) throw err;
        events.push({ error: wireError(err) });
      },
    };
    for (const item of spec.run(host, args, input.map(fromWire), ctx)) events.push({ out: toWire(item, keep) });
    return { events };
  } catch (err) {
    if (err instanceof PsUnmodelled || (err instanceof PsError && err.errorId === NOT_MODELLED_ID))
      return { events, refused: `${spec.name} : ${err.message}` };
    if (err instanceof PsTerminatingError || err instanceof PsError) return { events, terminating: wireError(err) };
    throw err;
  }
}

/**
 * A method of a simulated object pwsh holds (answerCmdlet kept it): its value (none for a void method), or the
 * exception it throws. pwsh
 * wraps what a method throws as 'Exception calling "Connect" with "1" argument(s): "..."' itself, so the sim's own
 * wrapping of the message is taken off.
 */
export function answerMethod(call: (...args: unknown[]) => unknown, args: Wire[], keep: KeepMethod): CmdletAnswer {
  try {
    const value = call(...args.map(fromWire));
    // A void method (Connect, Dispose: the sim's undefined) puts nothing in the pipeline; a null it returns is $null.
    return { events: value === undefined ? [] : [{ out: toWire(value, keep) }] };
  } catch (err) {
    if (err instanceof PsUnmodelled || (err instanceof PsError && err.errorId === NOT_MODELLED_ID))
      return { events: [], refused: `groundcrew sim: ${err.message}` };
    if (err instanceof PsTerminatingError || err instanceof PsError) {
      const inner = /^Exception calling "[^"]*" with "\d+" argument\(s\): "(.*)"$/s.exec(err.message)?.[1];
      return { events: [], terminating: { ...wireError(err), message: inner ?? err.message } };
    }
    throw err;
  }
}

/**
 * The native program a name or Windows path invokes, found by its file name as the TypeScript interpreter finds
 * it (a program run by its path checks that file on the host itself: ctx.command).
 */
export function nativeOf(registry: Registry<WindowsHost>, invoked: string): NativeSpec<WindowsHost> | undefined {
  const program = invoked.replace(/^.*\\/, '').toLowerCase();
  return registry.natives.get(program) ?? registry.natives.get(program.replace(/\.exe$/, ''));
}

export function answerNative(host: WindowsHost, registry: Registry<WindowsHost>, invoked: string, argv: string[]): NativeResult {
  const native = nativeOf(registry, invoked);
  if (!native) return { stdout: '', stderr: `groundcrew sim: ${invoked} is not a program on this host\n`, exitCode: 1 };
  try {
    return native.run(host, argv, {
      stdin: '',
      command: invoked,
      error: (err) => {
        throw err;
      },
    });
  } catch (err) {
    if (err instanceof PsError) return { stdout: '', stderr: `groundcrew sim: ${invoked}: ${err.message}\n`, exitCode: 1 };
    throw err;
  }
}
