// Words of the simulated bash: quoting, $VAR and ${VAR...} expansions, $( ) and field splitting.

import type { Node } from '../tree-sitter.js';
import { evaluateArithmetic } from './arithmetic.js';
import type { BashShell } from './bash-shell.js';
import { BashExit, BashFatal, BashUnbound, Unsupported } from './errors.js';
import { globSource } from './glob.js';
import { normalize } from './posix-path.js';

/** Where a command reads and writes: its standard input, and what it has written so far. */
export interface Io {
  stdin: string;
  out: string[];
  err: string[];
}

/**
 * The first of the interpreter's three layers (words, then commands.ts, then interpreter.ts): the shell's
 * variables and how a word expands. A $( ) runs statements, which only the top layer knows.
 */
export abstract class BashWords implements BashShell {
  cwd = '/root';
  readonly env = new Map<string, string>();
  protected status = 0;
  protected errexit = false;
  protected nounset = false;
  protected args: string[] = [];
  /** The script's standard input: a command substitution reads it too (x=$(cat)). */
  protected stdin = '';
  /** Status of the last command substitution, which an assignment passes on as its own. */
  protected substitutionStatus = 0;
  /** Where the running command's stderr goes: a command substitution inside it writes there too. */
  protected currentErr: string[] | undefined;
  /** Line of the statement being run, for bash's "line N:" in messages. */
  protected line = 1;

  constructor(env: Record<string, string>) {
    for (const [k, v] of Object.entries({
      HOME: '/root',
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      USER: 'root',
      SHELL: '/bin/bash',
      ...env,
    }))
      this.env.set(k, v);
  }

  resolve(path: string): string {
    return normalize(path, this.cwd);
  }

  protected abstract block(nodes: (Node | null)[], io: Io): number;

  /** Expands one argument node to its fields (unquoted expansions split on whitespace, as with default IFS). */
  protected expand(node: Node): string[] {
    switch (node.type) {
      case 'word':
      case 'command_name':
        if (node.type === 'command_name') return this.expand(node.namedChild(0) as Node);
        if (/(^|[^\\])[*?]/.test(node.text) || /^\[.*\]$/.test(node.text)) throw new Unsupported(`globbing (${node.text})`);
        return [node.text.replace(/^~(?=\/|$)/, this.env.get('HOME') ?? '/root').replace(/\\(.)/g, '$1')];
      case 'number':
      case 'extglob_pattern':
        // In [ a != b ] the grammar calls b a pattern; bash compares it as a word there.
        return [node.text];
      case 'raw_string':
        return [node.text.slice(1, -1)];
      case 'ansi_c_string':
        return [unescapeAnsi(node.text.slice(2, -1))];
      case 'string': {
        const only = node.namedChildren.length === 1 ? node.namedChildren[0] : undefined;
        if (only?.type === 'simple_expansion' && (only.text === '$@' || only.text === '${@}')) return [...this.args];
        return [this.#string(node)];
      }
      case 'concatenation':
        return [node.namedChildren.map((c) => (c ? this.expand(c).join(' ') : '')).join('')];
      case 'simple_expansion':
      case 'expansion':
        return this.#variable(node)
          .split(/\s+/)
          .filter((f) => f !== '');
      case 'command_substitution':
        return this.#substitute(node)
          .split(/\s+/)
          .filter((f) => f !== '');
      case 'arithmetic_expansion':
        return [this.arithmetic(node.text.replace(/^\$\(\(|\)\)$/g, ''))];
      default:
        throw new Unsupported(`${node.type} (${node.text.slice(0, 40)})`);
    }
  }

  /** One word, without field splitting (assignments, case words): $(...) keeps its newlines. */
  protected word(node: Node): string {
    if (node.type === 'command_substitution') return this.#substitute(node);
    if (node.type === 'simple_expansion' || node.type === 'expansion') return this.#variable(node);
    if (node.type === 'concatenation') return node.namedChildren.map((c) => (c ? this.word(c) : '')).join('');
    return this.expand(node).join(' ');
  }

  #string(node: Node): string {
    // Text between expansions is not always a node of its own (the space in "$a $b"): walk the source.
    const literal = (t: string) => t.replace(/\\([$`"\\\n])/g, '$1');
    const bodyStart = node.startIndex + 1;
    const bodyEnd = node.endIndex - 1;
    let out = '';
    let at = bodyStart;
    for (const child of node.namedChildren) {
      if (!child || child.type === 'string_content') continue;
      // The grammar may fold the whitespace before `$` into the expansion node (" $?"): split at the `$`.
      const dollar = child.startIndex + Math.max(0, child.text.indexOf('$'));
      out += literal(node.text.slice(at - node.startIndex, dollar - node.startIndex));
      if (child.type === 'simple_expansion' || child.type === 'expansion') out += this.#variable(child);
      else if (child.type === 'command_substitution') out += this.#substitute(child);
      else if (child.type === 'arithmetic_expansion') out += this.arithmetic(child.text.replace(/^\$\(\(|\)\)$/g, ''));
      else throw new Unsupported(`${child.type} in a string`);
      at = child.endIndex;
    }
    return out + literal(node.text.slice(at - node.startIndex, bodyEnd - node.startIndex));
  }

  /** $(( )) and (( )): parameters expanded first, then evaluated (bash manual, ARITHMETIC EVALUATION). */
  protected arithmetic(text: string): string {
    if (/\$\(|`/.test(text)) throw new Unsupported(`a command substitution inside arithmetic (${text.slice(0, 40)})`);
    const expanded = this.interpolate(text);
    try {
      return String(
        evaluateArithmetic(expanded, {
          read: (name) => this.env.get(name),
          write: (name, value) => this.env.set(name, value),
        }),
      );
    } catch (err) {
      if (err instanceof BashFatal) throw new BashFatal(`bash: line ${this.line}: ${err.text}`, err.code);
      throw err;
    }
  }

  protected interpolate(text: string): string {
    return text.replace(
      /\\([$`\\])|\$\{?([A-Za-z_][A-Za-z0-9_]*|[0-9#?])\}?/g,
      (whole, escaped: string | undefined, name: string | undefined) => {
        if (escaped) return escaped;
        return whole.startsWith('\\') ? whole : this.#read(name ?? '');
      },
    );
  }

  #read(name: string): string {
    if (name === '?') return String(this.status);
    if (name === '#') return String(this.args.length);
    if (name === '@' || name === '*') return this.args.join(' ');
    if (/^\d+$/.test(name)) return this.args[Number(name) - 1] ?? '';
    const value = this.env.get(name);
    if (value === undefined && this.nounset) {
      throw new BashUnbound(`bash: line ${this.line}: ${name}: unbound variable\n`);
    }
    return value ?? '';
  }

  /** ${#v}: bytes in the C locale (no LC_ALL, LC_CTYPE or LANG naming UTF-8, as over SSH without PAM), else characters. */
  #length(value: string): number {
    const locale = this.env.get('LC_ALL') || this.env.get('LC_CTYPE') || this.env.get('LANG') || 'C';
    return /utf-?8/i.test(locale) ? [...value].length : Buffer.byteLength(value, 'utf8');
  }

  #variable(node: Node): string {
    if (node.type === 'simple_expansion') return this.#read(node.text.trim().slice(1));
    const name = node.namedChildren.find((c) => c?.type === 'variable_name' || c?.type === 'special_variable_name')?.text ?? '';
    const op = node.children.find((c) => c && !c.isNamed && !['${', '}'].includes(c.type))?.text;
    if (node.text.startsWith('${#')) return String(this.#length(this.#read(name)));
    if (op === ':-' || op === '-' || op === ':=' || op === '=') {
      const value = this.env.get(name);
      const empty = value === undefined || (op.startsWith(':') && value === '');
      if (!empty) return value;
      const fallback = node.namedChildren
        .filter((c) => c !== null && c.type !== 'variable_name')
        .map((c) => (c ? this.expand(c).join(' ') : ''))
        .join('');
      if (op.endsWith('=')) this.env.set(name, fallback);
      return fallback;
    }
    if (op === ':+' || op === '+') {
      const value = this.env.get(name);
      if (value === undefined || (op === ':+' && value === '')) return '';
      return node.namedChildren
        .filter((c) => c !== null && c.type !== 'variable_name')
        .map((c) => (c ? this.word(c) : ''))
        .join('');
    }
    if (op !== undefined && ['#', '##', '%', '%%', '/', '//', ':'].includes(op)) return this.#trimmed(node, op, this.#read(name));
    if (op !== undefined) throw new Unsupported(`the expansion ${node.text}`);
    return this.#read(name);
  }

  /** ${v#p} ${v##p} ${v%p} ${v%%p}, ${v/p/r} ${v//p/r}, ${v:offset:length} (bash manual, Shell Parameter Expansion). */
  #trimmed(node: Node, op: string, value: string): string {
    const parts = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'variable_name');
    if (op === ':') {
      const [offsetNode, lengthNode] = parts;
      const offset = Number(this.arithmetic(offsetNode?.text ?? '0'));
      const from = offset < 0 ? Math.max(value.length + offset, 0) : offset;
      if (!lengthNode) return value.slice(from);
      const length = Number(this.arithmetic(lengthNode.text));
      return length < 0 ? value.slice(from, value.length + length) : value.slice(from, from + length);
    }
    const pattern = parts[0]?.text ?? '';
    if (/[$`]/.test(pattern) || /^[#%]/.test(pattern)) throw new Unsupported(`the expansion ${node.text}`);
    const whole = (text: string) => new RegExp(`^(?:${globSource(pattern)})$`).test(text);
    if (op === '#' || op === '##') {
      const lengths = [...Array(value.length + 1).keys()];
      const cut = (op === '#' ? lengths : lengths.reverse()).find((i) => whole(value.slice(0, i)));
      return cut === undefined ? value : value.slice(cut);
    }
    if (op === '%' || op === '%%') {
      const starts = [...Array(value.length + 1).keys()];
      const cut = (op === '%' ? starts.reverse() : starts).find((i) => whole(value.slice(i)));
      return cut === undefined ? value : value.slice(0, cut);
    }
    const replacement = parts[1] ? this.word(parts[1]) : '';
    if (pattern === '') return value;
    return value.replace(new RegExp(globSource(pattern), op === '//' ? 'g' : ''), () => replacement);
  }

  #substitute(node: Node): string {
    const io: Io = { stdin: this.stdin, out: [], err: this.currentErr ?? [] };
    const savedErrexit = this.errexit;
    try {
      this.substitutionStatus = this.block(node.namedChildren, io);
    } catch (err) {
      if (!(err instanceof BashExit)) throw err;
      if (err instanceof BashFatal) io.err.push(err.text);
      this.substitutionStatus = err.code;
    } finally {
      this.errexit = savedErrexit;
    }
    return io.out.join('').replace(/\n+$/, '');
  }
}

function unescapeAnsi(text: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0', e: '\x1b' };
  return text.replace(/\\(.)/g, (_, c: string) => map[c] ?? `\\${c}`);
}
