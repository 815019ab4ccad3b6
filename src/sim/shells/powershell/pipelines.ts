// PowerShell pipelines and commands in the simulator: cmdlets with PowerShell's parameter binding, native
// programs with $LASTEXITCODE, and how a cmdlet's non-terminating errors are written.

import { bindArguments, type CmdletContext, type CmdletSpec, isScriptBlock, type RawArgument, type Registry } from './commands.js';
import { formatError, notRecognized, PsError, PsScriptError, PsTerminatingError } from './errors.js';
import { type InterpreterOptions, PsExpressions } from './expressions.js';
import type { Node } from './parser.js';
import { unsupported, unwrap } from './syntax.js';
import { toItems, toText } from './values.js';

/** The interpreter's second layer: runs pipelines, and keeps what the script wrote to stderr. */
export abstract class PsPipelines<H> extends PsExpressions<H> {
  protected stderr = '';
  protected lastFailed = false;
  /** The script's lines, for the "+ ..." part of error messages. */
  protected source: string[] = [];
  /** The statement being run, for the "At line:" part of error messages. */
  protected current: Node | undefined;

  constructor(
    host: H,
    private readonly registry: Registry<H>,
    options: InterpreterOptions,
  ) {
    super(host, options);
  }

  protected pipeline(node: Node): unknown[] {
    const stages = node.type === 'pipeline_chain' ? node.namedChildren.filter((c): c is Node => c !== null) : [node];
    let items: unknown[] = [];
    stages.forEach((stage, index) => {
      const s = unwrap(stage);
      if (s.type === 'command') items = this.#command(s, items, index > 0);
      else if (index === 0) items = toItems(this.expr(s));
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
    if (!nameNode) throw unsupported(node);
    const name = invoked && unwrap(nameNode).type !== 'command_name' ? toText(this.expr(unwrap(nameNode))) : nameNode.text;
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
      this.set('LASTEXITCODE', result.exitCode);
      if (result.stderr) this.stderr += result.stderr;
      if (result.exitCode !== 0) this.lastFailed = true;
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
          out.push({ parameter, colonBound: true, value: valueNode ? this.expr(unwrap(valueNode)) : undefined, text: child.text });
        } else out.push({ parameter, text: child.text });
      } else if (child.type === 'generic_token') {
        out.push({ value: child.text, text: child.text });
      } else if (child.type === 'redirection' || child.type === 'file_redirection_operator') {
        throw unsupported(child);
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
        const action = (args.ErrorAction as string | undefined) ?? this.preference();
        const error = err.source ? err : new PsError(err.message, err.errorId, err.category, source);
        if (action === 'Stop') throw new PsScriptError(error.message, error.errorId, error.category, error.source);
        if (action === 'SilentlyContinue' || action === 'Ignore') return;
        this.lastFailed = true;
        const at = this.current;
        const line = (at?.startPosition.row ?? 0) + 1;
        this.stderr += formatError(error, line, (at?.startPosition.column ?? 0) + 1, this.source[line - 1] ?? source);
      },
    };
  }

  protected preference(): string {
    return toText(this.get('ErrorActionPreference'));
  }
}
