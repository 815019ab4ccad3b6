// Loops and case of the simulated bash (bash manual, "Looping Constructs" and "Conditional Constructs"):
// for, while, until, case with glob patterns and ;; ;& ;;&, and break/continue [n].

import type { Node } from '../tree-sitter.js';
import { BashCommands } from './commands.js';
import { BashLoopControl, Unsupported } from './errors.js';
import { globSource } from './glob.js';
import type { Io } from './words.js';

export abstract class BashControlFlow extends BashCommands {
  /** How many loops enclose the running command: break and continue outside one only complain. */
  protected loopDepth = 0;

  protected abstract dispatch(node: Node, io: Io): number;
  /** Runs an if/while condition: errexit does not fire there. */
  protected abstract condition(nodes: Node[], io: Io): number;

  /** One pass of a loop's body; says whether the loop stops. break 2 / continue 2 go on to the loop outside. */
  #pass(body: Node, io: Io): { status: number; stop: boolean } {
    try {
      return { status: this.block(body.namedChildren, io), stop: false };
    } catch (err) {
      if (!(err instanceof BashLoopControl)) throw err;
      if (err.levels > 1) {
        err.levels--;
        throw err;
      }
      return { status: 0, stop: err.kind === 'break' };
    }
  }

  #loop(run: () => number): number {
    this.loopDepth++;
    try {
      return run();
    } finally {
      this.loopDepth--;
    }
  }

  protected forStatement(node: Node, io: Io): number {
    if (node.type !== 'for_statement') throw new Unsupported(`${node.type} (${node.text.slice(0, 40)})`);
    const variable = node.childForFieldName('variable')?.text ?? '';
    const body = node.childForFieldName('body');
    const valueNodes = node.childrenForFieldName('value').filter((c): c is Node => c !== null);
    // `for x; do` (no `in`) walks the positional parameters.
    const values = node.children.some((c) => c?.type === 'in') ? valueNodes.flatMap((v) => this.expand(v)) : [...this.args];
    return this.#loop(() => {
      let status = 0;
      for (const value of values) {
        this.env.set(variable, value);
        if (!body) continue;
        const pass = this.#pass(body, io);
        status = pass.status;
        if (pass.stop) break;
      }
      return status;
    });
  }

  /** while and until: the grammar gives both as while_statement, told apart by the keyword. */
  protected whileStatement(node: Node, io: Io): number {
    const until = node.child(0)?.type === 'until';
    const body = node.childForFieldName('body');
    const condition = node.namedChildren.filter((c): c is Node => c !== null && c.id !== body?.id && c.type !== 'comment');
    if (!body) throw new Unsupported(`${node.type} (${node.text.slice(0, 40)})`);
    return this.#loop(() => {
      let status = 0;
      while ((this.condition(condition, io) === 0) !== until) {
        const pass = this.#pass(body, io);
        status = pass.status;
        if (pass.stop) break;
      }
      return status;
    });
  }

  protected caseStatement(node: Node, io: Io): number {
    const valueNode = node.childForFieldName('value') ?? node.namedChildren.find((c) => c !== null && c.type !== 'case_item');
    const word = valueNode ? this.word(valueNode) : '';
    const items = node.namedChildren.filter((c): c is Node => c?.type === 'case_item');
    let status = 0;
    let fallInto = false;
    for (const item of items) {
      const children = item.children.filter((c): c is Node => c !== null);
      const close = children.findIndex((c) => c.type === ')');
      const patterns = children.slice(0, close).filter((c) => c.isNamed);
      const body = children.slice(close + 1).filter((c) => c.isNamed && c.type !== 'comment');
      const terminator = children.find((c) => !c.isNamed && [';;', ';&', ';;&'].includes(c.type))?.type ?? ';;';
      if (!fallInto && !patterns.some((p) => this.#patternMatches(p, word))) continue;
      status = this.block(body, io);
      if (terminator === ';;') return status;
      fallInto = terminator === ';&';
    }
    return status;
  }

  #patternMatches(pattern: Node, word: string): boolean {
    const source =
      pattern.type === 'string' || pattern.type === 'raw_string'
        ? this.word(pattern).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
        : pattern.type === 'extglob_pattern' || pattern.type === 'word'
          ? globSource(pattern.text)
          : this.word(pattern).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    if (/[@!+]\(/.test(pattern.text)) throw new Unsupported(`the extended glob ${pattern.text}`);
    return new RegExp(`^(?:${source})$`).test(word);
  }

  /** break [n], continue [n]: outside a loop bash only complains. */
  protected loopControl(kind: 'break' | 'continue', args: string[], io: Io): number {
    const levels = Number(args[0] ?? 1);
    if (!Number.isInteger(levels) || levels < 1) {
      io.err.push(`bash: line ${this.line}: ${kind}: ${args[0]}: loop count out of range\n`);
      return 1;
    }
    if (this.loopDepth === 0) {
      io.err.push(`bash: line ${this.line}: ${kind}: only meaningful in a \`for', \`while', or \`until' loop\n`);
      return 0;
    }
    throw new BashLoopControl(kind, Math.min(levels, this.loopDepth));
  }
}
