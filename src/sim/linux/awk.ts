// awk on a simulated Linux host: the POSIX awk subset one-liners use (pattern { action } rules, BEGIN/END,
// fields, NR/NF/FS/OFS, print, printf, if, assignments, length/substr/index/tolower/toupper/sprintf).
// Loops, arrays, getline, sub/gsub and output redirection are refused with status 2, not guessed.

import { type CommandResult, fail, ok } from '../command-result.js';
import type { Utility } from '../shells/bash/bash-shell.js';
import {
  type AwkState,
  arith,
  type Expr,
  formatPrintf,
  looksNumeric,
  Next,
  num,
  Refused,
  type Stmt,
  splitFields,
  str,
  tokenize,
  truthy,
  unescapeAwk,
  type Value,
} from './awk-values.js';

class Parser {
  #pos = 0;

  constructor(private readonly t: string[]) {}

  peek = (k = 0) => this.t[this.#pos + k];
  take = () => this.t[this.#pos++];
  expect(token: string): void {
    const got = this.take();
    if (got !== token) throw new Refused(`'${got ?? 'the end'}' where '${token}' belongs`);
  }
  skipEnds(): void {
    while (this.peek() === '\n' || this.peek() === ';') this.#pos++;
  }
  get done(): boolean {
    return this.#pos >= this.t.length;
  }

  program(): { begin: Stmt[]; rules: { pattern?: Expr; action?: Stmt }[]; end: Stmt[] } {
    const begin: Stmt[] = [];
    const end: Stmt[] = [];
    const rules: { pattern?: Expr; action?: Stmt }[] = [];
    for (this.skipEnds(); !this.done; this.skipEnds()) {
      if (this.peek() === 'BEGIN' || this.peek() === 'END') {
        const which = this.take() === 'BEGIN' ? begin : end;
        which.push(this.block());
        continue;
      }
      const pattern = this.peek() === '{' ? undefined : this.expr();
      const action = this.peek() === '{' ? this.block() : undefined;
      rules.push({ pattern, action });
    }
    return { begin, rules, end };
  }

  block(): Stmt {
    this.expect('{');
    const body: Stmt[] = [];
    for (this.skipEnds(); this.peek() !== '}'; this.skipEnds()) {
      if (this.done) throw new Refused('a block without its }');
      body.push(this.statement());
    }
    this.take();
    return (ctx) => {
      for (const s of body) s(ctx);
    };
  }

  statement(): Stmt {
    const t = this.peek();
    if (t === '{') return this.block();
    if (t === 'print' || t === 'printf') {
      this.take();
      const args: Expr[] = [];
      if (['>', '>>', '|'].includes(this.peek() ?? '')) throw new Refused('output redirection in print');
      const bare = this.peek() === undefined || ['\n', ';', '}'].includes(this.peek() as string);
      if (!bare) {
        const parens = this.peek() === '(' && this.#closesList();
        if (parens) this.take();
        do args.push(this.expr(true));
        while (this.peek() === ',' && this.take());
        if (parens) this.expect(')');
      }
      if (['>', '>>', '|'].includes(this.peek() ?? '')) throw new Refused('output redirection in print');
      if (t === 'printf')
        return (ctx) => {
          const [format, ...rest] = args.map((a) => a(ctx));
          ctx.out.push(formatPrintf(str(format ?? ''), rest));
        };
      return (ctx) => {
        const ofs = str(ctx.vars.get('OFS') ?? ' ');
        ctx.out.push(`${args.length === 0 ? ctx.fields[0] : args.map((a) => str(a(ctx))).join(ofs)}\n`);
      };
    }
    if (t === 'next') {
      this.take();
      return () => {
        throw new Next();
      };
    }
    if (t === 'if') {
      this.take();
      this.expect('(');
      const condition = this.expr();
      this.expect(')');
      this.skipEnds();
      const yes = this.statement();
      let no: Stmt | undefined;
      const save = this.#pos;
      this.skipEnds();
      if (this.peek() === 'else') {
        this.take();
        this.skipEnds();
        no = this.statement();
      } else this.#pos = save;
      return (ctx) => (truthy(condition(ctx)) ? yes(ctx) : no?.(ctx));
    }
    if (['while', 'for', 'do', 'getline', 'delete', 'exit', 'function', 'sub', 'gsub', 'split'].includes(t ?? ''))
      throw new Refused(`'${t}'`);
    const e = this.expr();
    return (ctx) => {
      e(ctx);
    };
  }

  /** Whether print ( ... ) is the parenthesised list form: its ) is followed by the statement's end. */
  #closesList(): boolean {
    let depth = 0;
    for (let i = this.#pos; i < this.t.length; i++) {
      if (this.t[i] === '(') depth++;
      if (this.t[i] === ')' && --depth === 0) return [undefined, '\n', ';', '}'].includes(this.t[i + 1]);
    }
    return false;
  }

  expr(inPrint = false): Expr {
    const target = this.peek();
    if (target && /^[A-Za-z_]/.test(target) && ['=', '+=', '-=', '*=', '/='].includes(this.peek(1) ?? '')) {
      this.take();
      const op = this.take() as string;
      const value = this.expr(inPrint);
      return (ctx) => {
        const v = op === '=' ? value(ctx) : arith(op[0] as string, ctx.vars.get(target) ?? 0, value(ctx));
        ctx.vars.set(target, v);
        return v;
      };
    }
    return this.ternary(inPrint);
  }

  ternary(inPrint: boolean): Expr {
    const c = this.or(inPrint);
    if (this.peek() !== '?') return c;
    this.take();
    const a = this.expr(inPrint);
    this.expect(':');
    const b = this.expr(inPrint);
    return (ctx) => (truthy(c(ctx)) ? a(ctx) : b(ctx));
  }

  or(p: boolean): Expr {
    let l = this.and(p);
    while (this.peek() === '||') {
      this.take();
      const [a, b] = [l, this.and(p)];
      l = (ctx) => (truthy(a(ctx)) || truthy(b(ctx)) ? 1 : 0);
    }
    return l;
  }

  and(p: boolean): Expr {
    let l = this.match(p);
    while (this.peek() === '&&') {
      this.take();
      const [a, b] = [l, this.match(p)];
      l = (ctx) => (truthy(a(ctx)) && truthy(b(ctx)) ? 1 : 0);
    }
    return l;
  }

  match(p: boolean): Expr {
    let l = this.relational(p);
    while (this.peek() === '~' || this.peek() === '!~') {
      const negate = this.take() === '!~';
      // $2 ~ /re/ matches the regex itself, not its match against $0.
      const literal =
        this.peek()?.startsWith('/') && (this.peek()?.length ?? 0) > 1 ? new RegExp((this.take() as string).slice(1)) : undefined;
      const [a, b] = [l, literal ? undefined : this.relational(p)];
      l = (ctx) => ((literal ?? new RegExp(str(b?.(ctx) ?? ''))).test(str(a(ctx))) !== negate ? 1 : 0);
    }
    return l;
  }

  relational(inPrint: boolean): Expr {
    const l = this.concat();
    const op = this.peek();
    if (!['<', '<=', '==', '!=', '>=', '>'].includes(op ?? '') || (inPrint && op === '>')) return l;
    this.take();
    const r = this.concat();
    return (ctx) => {
      const [a, b] = [l(ctx), r(ctx)];
      const c = looksNumeric(a) && looksNumeric(b) ? num(a) - num(b) : str(a) < str(b) ? -1 : str(a) > str(b) ? 1 : 0;
      return { '<': c < 0, '<=': c <= 0, '==': c === 0, '!=': c !== 0, '>=': c >= 0, '>': c > 0 }[op as string] ? 1 : 0;
    };
  }

  concat(): Expr {
    const parts = [this.additive()];
    // Concatenation is two operands side by side: another one starts here.
    while (/^(?:"|\$|\d|\.\d|[A-Za-z_(])/.test(this.peek() ?? '') && !['in', 'else', 'getline'].includes(this.peek() as string)) {
      parts.push(this.additive());
    }
    return parts.length === 1 ? (parts[0] as Expr) : (ctx) => parts.map((p) => str(p(ctx))).join('');
  }

  additive(): Expr {
    let l = this.multiplicative();
    while (this.peek() === '+' || this.peek() === '-') {
      const op = this.take() as string;
      const [a, b] = [l, this.multiplicative()];
      l = (ctx) => arith(op, a(ctx), b(ctx));
    }
    return l;
  }

  multiplicative(): Expr {
    let l = this.unary();
    while (['*', '/', '%'].includes(this.peek() ?? '')) {
      const op = this.take() as string;
      const [a, b] = [l, this.unary()];
      l = (ctx) => arith(op, a(ctx), b(ctx));
    }
    return l;
  }

  unary(): Expr {
    const t = this.peek();
    if (t === '!' || t === '-' || t === '+') {
      this.take();
      const v = this.unary();
      return t === '!' ? (ctx) => (truthy(v(ctx)) ? 0 : 1) : t === '-' ? (ctx) => -num(v(ctx)) : (ctx) => num(v(ctx));
    }
    return this.primary();
  }

  primary(): Expr {
    const t = this.take();
    if (t === undefined) throw new Refused('a program that ends in the middle of an expression');
    if (t.startsWith('"')) {
      const s = unescapeAwk(t.slice(1, -1));
      return () => s;
    }
    if (t.startsWith('/') && t.length > 1) {
      const re = new RegExp(t.slice(1));
      return (ctx) => (re.test(ctx.fields[0] ?? '') ? 1 : 0);
    }
    if (/^[\d.]/.test(t)) return () => Number(t);
    if (t === '(') {
      const e = this.expr();
      this.expect(')');
      return e;
    }
    if (t === '$') {
      const index = this.primary();
      return (ctx) => ctx.fields[num(index(ctx))] ?? '';
    }
    if (/^[A-Za-z_]/.test(t)) {
      if (this.peek() === '(') return this.#call(t);
      if (this.peek() === '++' || this.peek() === '--') {
        const delta = this.take() === '++' ? 1 : -1;
        return (ctx) => {
          const v = num(ctx.vars.get(t) ?? 0);
          ctx.vars.set(t, v + delta);
          return v;
        };
      }
      if (this.peek() === '[') throw new Refused('arrays');
      return (ctx) => (t === 'NR' || t === 'NF' ? (ctx.vars.get(t) as Value) : (ctx.vars.get(t) ?? ''));
    }
    throw new Refused(`'${t}'`);
  }

  #call(name: string): Expr {
    this.take();
    const args: Expr[] = [];
    while (this.peek() !== ')') {
      args.push(this.expr());
      if (this.peek() === ',') this.take();
      else if (this.peek() !== ')') throw new Refused(`the call ${name}(`);
    }
    this.take();
    const a = (ctx: AwkState, i: number) => (args[i] ? (args[i] as Expr)(ctx) : '');
    switch (name) {
      case 'length':
        return (ctx) => (args.length === 0 ? (ctx.fields[0] ?? '') : str(a(ctx, 0))).length;
      case 'substr':
        return (ctx) => {
          const s = str(a(ctx, 0));
          const start = Math.round(num(a(ctx, 1)));
          const end = args.length > 2 ? start + Math.round(num(a(ctx, 2))) : Number.POSITIVE_INFINITY;
          return s.slice(Math.max(start, 1) - 1, Math.max(end - 1, 0));
        };
      case 'index':
        return (ctx) => str(a(ctx, 0)).indexOf(str(a(ctx, 1))) + 1;
      case 'tolower':
        return (ctx) => str(a(ctx, 0)).toLowerCase();
      case 'toupper':
        return (ctx) => str(a(ctx, 0)).toUpperCase();
      case 'sprintf':
        return (ctx) =>
          formatPrintf(
            str(a(ctx, 0)),
            args.slice(1).map((e) => e(ctx)),
          );
      default:
        throw new Refused(`the function ${name}()`);
    }
  }
}

export function awkUtility(read: (shell: Parameters<Utility>[2], path: string, stdin: string) => string | undefined): Utility {
  return (args, stdin, shell): CommandResult => {
    const vars = new Map<string, Value>([
      ['FS', ' '],
      ['OFS', ' '],
      ['NR', 0],
      ['NF', 0],
    ]);
    let i = 0;
    for (; i < args.length && (args[i] as string).startsWith('-') && args[i] !== '-'; i++) {
      const a = args[i] as string;
      if (a === '-F' || a.startsWith('-F')) vars.set('FS', unescapeAwk(a === '-F' ? (args[++i] ?? '') : a.slice(2)).replace(/^t$/, '\t'));
      else if (a === '-v') {
        const [name, ...value] = (args[++i] ?? '').split('=');
        vars.set(name ?? '', unescapeAwk(value.join('=')));
      } else return fail(`awk: groundcrew sim: the option ${a} is outside the simulated subset\n`, 2);
    }
    const source = args[i++];
    if (source === undefined) return fail('usage: awk [-F value] [-v var=value] [--] program [file ...]\n', 2);
    let program: ReturnType<Parser['program']>;
    try {
      program = new Parser(tokenize(source)).program();
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      return fail(`awk: groundcrew sim: ${err.message} is outside the simulated subset\n`, 2);
    }
    let text = '';
    for (const path of args.length > i ? args.slice(i) : ['-']) {
      const content = read(shell, path, stdin);
      if (content === undefined) return fail(`awk: cannot open "${path}" (No such file or directory)\n`, 2);
      text += content;
    }
    const ctx: AwkState = { fields: [''], vars, out: [] };
    try {
      for (const s of program.begin) s(ctx);
      const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
      for (const line of lines) {
        ctx.fields = [line, ...splitFields(line, str(vars.get('FS') ?? ' '))];
        vars.set('NR', num(vars.get('NR') ?? 0) + 1);
        vars.set('NF', ctx.fields.length - 1);
        try {
          for (const rule of program.rules) {
            if (rule.pattern && !truthy(rule.pattern(ctx))) continue;
            if (rule.action) rule.action(ctx);
            else ctx.out.push(`${ctx.fields[0]}\n`);
          }
        } catch (err) {
          if (!(err instanceof Next)) throw err;
        }
      }
      for (const s of program.end) s(ctx);
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      return fail(`awk: groundcrew sim: ${err.message} is outside the simulated subset\n`, 2);
    }
    return ok(ctx.out.join(''));
  };
}
