// PowerShell pipelines and commands in the simulator: script functions, cmdlets with PowerShell's parameter
// binding, native programs with $LASTEXITCODE, redirections, and where every error goes ($Error, stderr,
// the output of 2>&1, nowhere for 2>$null).

import { cast } from './casts.js';
import {
  bindArguments,
  type CmdletContext,
  type CmdletSpec,
  isScriptBlock,
  type RawArgument,
  type Registry,
  refuseShouldProcess,
} from './commands.js';
import { errorRecord } from './error-record.js';
import {
  formatError,
  NOT_MODELLED_ID,
  notModelledCommand,
  notRecognized,
  PsError,
  PsScriptError,
  PsTerminatingError,
  PsUnmodelled,
} from './errors.js';
import { type InterpreterOptions, PsExpressions } from './expressions.js';
import { bindFunction, type FunctionDef } from './functions.js';
import { binaryOperator } from './operators.js';
import type { Node } from './parser.js';
import { outFileBytes, type Redirect, redirectOf } from './redirection.js';
import { unsupported, unwrap } from './syntax.js';
import { formatOutput, isTruthy, toItems, toText } from './values.js';

/** Where errors go while a command runs: the console, nowhere, or the output (2>&1). */
export type ErrorSink = { kind: 'console' } | { kind: 'discard' } | { kind: 'capture'; items: unknown[] };

/** `return`: leaves a function or script block with what it wrote so far. */
/** A typed parameter's argument that will not convert: the binder's error, which ends the statement (about_Functions). */
function convertArgument(command: string, parameter: string, type: string, given: unknown): unknown {
  try {
    return cast(type, given);
  } catch (err) {
    if (!(err instanceof PsTerminatingError) || err instanceof PsUnmodelled) throw err;
    throw new PsTerminatingError(
      `Cannot process argument transformation on parameter '${parameter}'. ${err.message}`,
      `ParameterArgumentTransformationError,${command}`,
      `InvalidData: (:) [${command}], ParameterBindingArgumentTransformationException`,
      command,
      'System.Management.Automation.ParameterBindingArgumentTransformationException',
    );
  }
}

const NULL_SENDERS = new Set(['variable', 'member_access', 'element_access']);

export class ReturnSignal extends Error {
  partial: unknown[] = [];
}

/** The interpreter's second layer: runs pipelines, and keeps what the script wrote to stderr. */
export abstract class PsPipelines<H> extends PsExpressions<H> {
  protected stderr = '';
  protected lastFailed = false;
  /** The script's lines, for the "+ ..." part of error messages. */
  protected source: string[] = [];
  /** The statement being run, for the "At line:" part of error messages. */
  protected current: Node | undefined;
  protected errorSink: ErrorSink = { kind: 'console' };
  protected readonly functions = new Map<string, FunctionDef>();
  /** $Error: newest first (about_Automatic_Variables). */
  protected readonly errors: unknown[] = [];

  constructor(
    host: H,
    private readonly registry: Registry<H>,
    options: InterpreterOptions,
  ) {
    super(host, options);
    this.scopes.setAutomatic('Error', this.errors, true);
  }

  protected abstract functionBody(def: FunctionDef): unknown[];

  protected pipeline(node: Node): unknown[] {
    const children = node.type === 'pipeline_chain' ? node.namedChildren.filter((c): c is Node => c !== null) : [node];
    // An expression's redirections ('x' > $null) hang off the pipeline; a command's are among its elements.
    const redirects = children
      .filter((c) => c.type === 'redirections')
      .flatMap((r) => r.namedChildren)
      .map((r) => (r ? redirectOf(r, (n) => this.expr(n)) : undefined))
      .filter((r): r is Redirect => r !== undefined);
    const stages = children.filter((c) => c.type !== 'redirections');
    return this.#redirected(redirects, () => {
      let items: unknown[] = [];
      stages.forEach((stage, index) => {
        const s = unwrap(stage);
        if (s.type === 'command') items = this.#command(s, items, index > 0, index < stages.length - 1);
        else if (index === 0) items = this.expressionItems(s);
        else
          throw new PsTerminatingError(
            'Expressions are only allowed as the first element of a pipeline.',
            'ExpressionsMustBeFirstInPipeline',
            'ParserError',
          );
      });
      return items;
    });
  }

  /**
   * What an expression sends down the pipeline: its items. A variable, property or element that is $null sends
   * one $null (`function f { 1; $null; 2 }` outputs three items, `$null | ForEach-Object` runs once); a method or
   * a cmdlet that returns nothing sends nothing.
   */
  protected expressionItems(node: Node): unknown[] {
    const value = this.expr(node);
    if ((value === null || value === undefined) && NULL_SENDERS.has(unwrap(node).type)) return [null];
    return toItems(value);
  }

  /** An error a command reported: into $Error, then to wherever errors go now, as PowerShell writes it. */
  protected reportError(err: PsError, at: Node | undefined, action = this.preference()): void {
    const line = (at?.startPosition.row ?? 0) + 1;
    const formatted = formatError(err, line, (at?.startPosition.column ?? 0) + 1, this.source[line - 1] ?? '');
    // Even a hidden error sets $? to False.
    this.lastFailed = true;
    if (action === 'Ignore') return;
    const record = errorRecord(err, formatted);
    this.errors.unshift(record);
    if (action === 'SilentlyContinue') return;
    if (this.errorSink.kind === 'console') this.stderr += formatted;
    else if (this.errorSink.kind === 'capture') this.errorSink.items.push(record);
  }

  #command(node: Node, input: unknown[], piped: boolean, followed = false): unknown[] {
    const nameNode = node.namedChildren.find((c) => c?.type === 'command_name' || c?.type === 'command_name_expr');
    const invoked = node.namedChildren.find((c) => c?.type === 'command_invokation_operator');
    if (!nameNode) throw unsupported(node);
    if (invoked?.text === '.') throw unsupported(node, 'dot-sourcing');
    const name = invoked && unwrap(nameNode).type !== 'command_name' ? toText(this.expr(unwrap(nameNode))) : nameNode.text;
    const elements = node.namedChildren.find((c) => c?.type === 'command_elements');
    // The grammar reads 1..4 (no spaces) as a command name; PowerShell reads a range.
    const range = /^(-?\d+)\.\.(-?\d+)$/.exec(name);
    if (range && !elements && !invoked) return toItems(binaryOperator('..', Number(range[1]), Number(range[2])));
    const redirects: Redirect[] = [];
    const raw = elements ? this.#rawArguments(elements, redirects) : [];
    return this.#redirected(redirects, () => this.#run(name, raw, input, piped, followed));
  }

  #run(name: string, raw: RawArgument[], input: unknown[], piped: boolean, followed: boolean): unknown[] {
    const fn = this.functions.get(name.toLowerCase());
    if (fn) return this.#callFunction(fn, raw, piped ? input : []);
    const cmdlet = this.registry.cmdlets.get(name.toLowerCase());
    if (cmdlet) {
      // A cmdlet whose module this host lacks: not recognized, as a real (catchable) error.
      if (cmdlet.available && !cmdlet.available(this.host)) throw notRecognized(name);
      const args = bindArguments(cmdlet as CmdletSpec<unknown>, raw);
      // $WhatIfPreference = $true makes every ShouldProcess cmdlet act as with -WhatIf (about_Preference_Variables).
      if (cmdlet.supportsShouldProcess && isTruthy(this.get('WhatIfPreference')) && args.WhatIf === undefined)
        refuseShouldProcess(cmdlet.name, { WhatIf: true });
      return cmdlet.run(this.host, args, piped ? input : [], this.#context(cmdlet.name, args));
    }
    const base = name.toLowerCase().replace(/^.*[\\/]/, '');
    const native = this.registry.natives.get(base) ?? this.registry.natives.get(base.replace(/\.exe$/, ''));
    if (native) return this.#native(native, name, raw, followed);
    throw notModelledCommand(name);
  }

  #native(native: NonNullable<ReturnType<Registry<H>['natives']['get']>>, name: string, raw: RawArgument[], followed: boolean): unknown[] {
    const argv = raw.flatMap((a) => {
      if (a.parameter !== undefined) return [a.text];
      // A script block given to a program is passed as -encodedCommand ..., which is why '{current}' needs quotes.
      if (isScriptBlock(a.value))
        return ['-encodedCommand', Buffer.from(a.value.text, 'utf16le').toString('base64'), '-inputFormat', 'xml', '-outputFormat', 'text'];
      return toItems(a.value).map(toText);
    });
    const result = native.run(this.host, argv, this.#context(name, {}));
    if (result.background && followed)
      throw new PsUnmodelled(`groundcrew sim: the GUI program ${name} piped on (PowerShell then waits for it)`, name);
    if (!result.background) {
      this.scopes.setAutomatic('LASTEXITCODE', result.exitCode, true);
      if (result.exitCode !== 0) this.lastFailed = true;
    }
    const stdout = result.stdout === '' ? [] : result.stdout.replace(/\r?\n$/, '').split(/\r?\n/);
    if (result.stderr && this.errorSink.kind === 'console') this.stderr += result.stderr;
    else if (result.stderr) {
      // Windows PowerShell 5.1: redirected stderr of a program becomes error records (NativeCommandError), so
      // $ErrorActionPreference = 'Stop' ends the script at its first line (changed only in PowerShell 7.2).
      for (const line of result.stderr.replace(/\r?\n$/, '').split(/\r?\n/)) {
        const err = new PsError(
          line,
          'NativeCommandError',
          `NotSpecified: (${line}:String) [], RemoteException`,
          name,
          'System.Management.Automation.RemoteException',
        );
        if (this.preference() === 'Stop') throw new PsScriptError(err.message, err.errorId, err.category, name, err.exceptionType);
        this.reportError(err, this.current);
      }
    }
    return stdout;
  }

  #callFunction(def: FunctionDef, raw: RawArgument[], input: unknown[]): unknown[] {
    const { bound, rest } = bindFunction(def, raw);
    return this.scopes.inChild(() => {
      for (const p of def.params) {
        const given = bound.has(p.name)
          ? bound.get(p.name)
          : p.type === 'switch'
            ? false
            : p.defaultValue
              ? this.value(p.defaultValue)
              : null;
        const value =
          p.type === 'switch'
            ? isTruthy(given)
            : p.type && (bound.has(p.name) || p.defaultValue)
              ? convertArgument(def.name, p.name, p.type, given)
              : given;
        this.scopes.setAutomatic(p.name, value);
        // A typed parameter is a typed variable in the function: later assignments convert too.
        if (p.type && p.type !== 'switch') this.scopes.constrain(p.name, p.type);
      }
      const action = bound.get('ErrorAction');
      if (action !== undefined) this.scopes.setAutomatic('ErrorActionPreference', toText(action));
      this.scopes.setAutomatic('args', rest);
      this.scopes.setAutomatic('input', input);
      try {
        return this.functionBody(def);
      } catch (err) {
        if (err instanceof ReturnSignal) return err.partial;
        throw err;
      }
    });
  }

  #rawArguments(elements: Node, redirects: Redirect[]): RawArgument[] {
    const out: RawArgument[] = [];
    // Separators are whitespace, except the ':' of a colon-bound parameter (-Confirm:$false), which is kept.
    const children = elements.children.filter((c): c is Node => c !== null && c.text.trim() !== '');
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as Node;
      const redirect = redirectOf(child, (n) => this.expr(n));
      if (redirect) {
        redirects.push(redirect);
      } else if (child.type === 'command_parameter') {
        const colon = child.text.endsWith(':') || children[i + 1]?.text === ':';
        const parameter = child.text.replace(/^-/, '').replace(/:$/, '');
        if (colon) {
          if (children[i + 1]?.text === ':') i++;
          const valueNode = children[++i];
          out.push({ parameter, colonBound: true, value: valueNode ? this.expr(unwrap(valueNode)) : undefined, text: child.text });
        } else out.push({ parameter, text: child.text });
      } else if (child.type === 'generic_token' && child.text.startsWith(',')) {
        // The next element of a bareword list (Domain,Public,Private: syntax-error.ts, isBarewordListGap).
        const previous = out.at(-1);
        if (!previous || previous.parameter !== undefined) throw unsupported(child, 'a bareword list that does not follow an argument');
        const items = Array.isArray(previous.value) ? previous.value : [previous.value];
        out[out.length - 1] = { value: [...items, child.text.slice(1)], text: `${previous.text}${child.text}` };
      } else if (child.type === 'generic_token') {
        out.push({ value: child.text, text: child.text });
      } else {
        out.push({ value: this.expr(unwrap(child)), text: child.text });
      }
    }
    return out;
  }

  #context(source: string, args: Record<string, unknown>): CmdletContext {
    return {
      stdin: this.options.stdin ?? '',
      command: source,
      error: (err: PsError) => {
        if (err instanceof PsUnmodelled || err.errorId === NOT_MODELLED_ID)
          throw new PsUnmodelled(`groundcrew sim: ${err.message}`, source);
        const action = (args.ErrorAction as string | undefined) ?? this.preference();
        const error = err.source ? err : new PsError(err.message, err.errorId, err.category, source, err.exceptionType);
        if (action === 'Stop') throw new PsScriptError(error.message, error.errorId, error.category, error.source, error.exceptionType);
        this.reportError(error, this.current, action);
      },
    };
  }

  /**
   * Runs a command under its redirections. Errors merged by 2>&1 come after the command's output (the
   * simulator does not interleave them); streams 3 to 6 carry nothing here, so their redirections do nothing.
   */
  #redirected(redirects: Redirect[], run: () => unknown[]): unknown[] {
    if (redirects.length === 0) return run();
    let output: Redirect['target'] | undefined;
    let errors: Redirect['target'] | undefined;
    for (const r of redirects) {
      if (r.stream === '1' || r.stream === '*') output = r.target.kind === 'merge' ? output : r.target;
      if (r.stream === '2' || r.stream === '*') errors = r.target;
      if (r.target.kind === 'file' && r.target.append) throw unsupported(r.node, 'appending redirection (>>) to a file');
    }
    const saved = this.errorSink;
    const captured: unknown[] = [];
    if (errors) this.errorSink = errors.kind === 'null' ? { kind: 'discard' } : { kind: 'capture', items: captured };
    let items: unknown[];
    try {
      items = run();
    } finally {
      this.errorSink = saved;
    }
    if (errors?.kind === 'merge') items = [...items, ...captured];
    else if (errors?.kind === 'file') this.#writeFile(errors.path, formatOutput(captured));
    if (output?.kind === 'null') return [];
    if (output?.kind === 'file') {
      this.#writeFile(output.path, formatOutput(items));
      return [];
    }
    return items;
  }

  /** `> file` writes as Out-File does; a host without files cannot take it. */
  #writeFile(path: string, text: string): void {
    const write = (this.host as { writeBytes?: (path: string, bytes: Buffer) => string | undefined }).writeBytes;
    if (!write) throw new PsUnmodelled(`groundcrew sim: this host cannot take a redirection to ${path}`);
    const problem = write.call(this.host, path, outFileBytes(text));
    if (problem)
      throw new PsTerminatingError(
        problem,
        'FileOpenFailure',
        'OpenError: (:) [Out-File], IOException',
        'out-file',
        'System.IO.IOException',
      );
  }

  protected preference(): string {
    return toText(this.get('ErrorActionPreference'));
  }
}
