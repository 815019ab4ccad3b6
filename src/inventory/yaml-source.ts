// One parsed YAML file that can say where any path in it is, for file:line:col errors.

import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, type Pair, parseDocument, type YAMLMap } from 'yaml';
import { controlCharacter } from '../control-characters.js';
import type { Diagnostic, Severity } from './diagnostic.js';
import { MAX_ALIAS_COUNT } from './yaml-limits.js';

export type Path = readonly (string | number)[];

interface Located {
  key?: Node;
  value?: Node;
}

/** What parsing the text gives: the document, its line starts, and the per-map key index built as asked. */
interface Parsed {
  doc: Document;
  lines: LineCounter;
  /** Key → first pair, per map: lookups by path stay O(depth) on a 10,000-node file. */
  index: WeakMap<YAMLMap, Map<string, Pair>>;
}

export class YamlSource {
  readonly file: string;
  readonly text: string;
  #parsed: Parsed | undefined;
  #js: { value: unknown } | undefined;

  constructor(file: string, text: string) {
    this.file = file;
    this.text = text;
    this.#parsed = YamlSource.#parse(text);
  }

  static #parse(text: string): Parsed {
    const lines = new LineCounter();
    // Duplicate keys are reported by us (see duplicateKeys) with both places named.
    const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false });
    return { doc, lines, index: new WeakMap() };
  }

  /** The document; parsed again from the text when it was released. */
  get doc(): Document {
    return this.#ensure().doc;
  }

  #ensure(): Parsed {
    this.#parsed ??= YamlSource.#parse(this.text);
    return this.#parsed;
  }

  /**
   * Lets go of the document and the plain data (the parse memo keeps a revision's files between commits, and a
   * 10,000-node instances.yaml's syntax tree is about 3 KB a node: docs/BENCHMARKS.md). The next use parses
   * the text again; what was derived from the file is kept by the memo, so an unchanged file is rarely asked.
   */
  release(): void {
    this.#parsed = undefined;
    this.#js = undefined;
  }

  /** The YAML syntax errors, each with its own position and the first line of the parser's message. */
  syntaxErrors(): Diagnostic[] {
    return this.doc.errors.map((err) => {
      const firstLine = err.message.split('\n')[0] ?? err.message;
      const message = firstLine.replace(/ at line \d+, column \d+:?$/, '');
      return this.#diagnostic(err.pos[0], 'error', `YAML syntax error: ${message}`);
    });
  }

  /** The file as plain data; computed once (callers ask several times, and it is not cheap on a big file). */
  toJS(): unknown {
    if (this.#js === undefined) this.#js = { value: this.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
    return this.#js.value;
  }

  /**
   * Aliases that expand past the limit (a "billion laughs": each alias doubling the last), located at the
   * first alias; the yaml package's own words ("Excessive alias count") are not the operator's.
   */
  aliasProblem(): Diagnostic | undefined {
    try {
      this.toJS();
      return undefined;
    } catch (err) {
      if (!/alias/i.test(String(err))) throw err;
      const first = this.#firstAlias(this.doc.contents);
      return this.#diagnostic(
        first ?? 0,
        'error',
        `aliases expand past the limit of ${MAX_ALIAS_COUNT} copies (a YAML alias bomb?); write the values out instead`,
      );
    }
  }

  #firstAlias(node: unknown): number | undefined {
    if (isAlias(node)) return node.range?.[0];
    const children = isMap(node) ? node.items.flatMap((p) => [p.key, p.value]) : isSeq(node) ? node.items : [];
    for (const child of children) {
      const at = this.#firstAlias(child);
      if (at !== undefined) return at;
    }
    return undefined;
  }

  position(offset: number): { line: number; col: number } {
    return this.#ensure().lines.linePos(offset);
  }

  locate(path: Path): Located {
    let located: Located = { value: this.doc.contents ?? undefined };
    for (const segment of path) {
      const parent = located.value;
      if (isMap(parent)) {
        const pair = this.#pairs(parent).get(String(segment));
        if (!pair) return { key: located.key ?? located.value, value: undefined };
        located = { key: pair.key as Node, value: (pair.value as Node | null) ?? undefined };
      } else if (isSeq(parent) && typeof segment === 'number') {
        const item = parent.items[segment] as Node | undefined;
        if (!item) return { key: located.key, value: undefined };
        located = { key: item, value: item };
      } else {
        return { key: located.key ?? located.value, value: undefined };
      }
    }
    return located;
  }

  #pairs(map: YAMLMap): Map<string, Pair> {
    const { index } = this.#ensure();
    let pairs = index.get(map);
    if (!pairs) {
      pairs = new Map();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const key = String(pair.key.value);
        if (!pairs.has(key)) pairs.set(key, pair as Pair);
      }
      index.set(map, pairs);
    }
    return pairs;
  }

  /** The scalar at `path` exactly as written (so `18.10` stays "18.10", not the number 18.1). */
  scalarText(path: Path): string | undefined {
    const { value } = this.locate(path);
    if (!isScalar(value) || value.value === null) return undefined;
    return value.type === 'PLAIN' && value.source !== undefined ? value.source : String(value.value);
  }

  /** Where to point for `path`: its value, or its key when the value is empty or asked for, or the nearest parent. */
  offsetOf(path: Path, at: 'key' | 'value' = 'value'): number {
    const { key, value } = this.locate(path);
    const valueIsEmpty = !value || (isScalar(value) && value.value === null && value.source === '');
    const node = at === 'key' || valueIsEmpty ? (key ?? value) : value;
    return node?.range?.[0] ?? 0;
  }

  diagnostic(path: Path, severity: Severity, message: string, at: 'key' | 'value' = 'value'): Diagnostic {
    return this.#diagnostic(this.offsetOf(path, at), severity, message);
  }

  /** Keys repeated inside one map, anywhere in the file: YAML forbids them and the last would silently win. */
  duplicateKeys(): { path: Path; offset: number; firstLine: number }[] {
    const found: { path: Path; offset: number; firstLine: number }[] = [];
    const walk = (node: unknown, path: Path): void => {
      if (isMap(node)) {
        const seen = new Map<string, number>();
        for (const pair of node.items) {
          if (!isScalar(pair.key)) continue;
          const name = String(pair.key.value);
          const offset = pair.key.range?.[0] ?? 0;
          const first = seen.get(name);
          if (first !== undefined) found.push({ path: [...path, name], offset, firstLine: this.position(first).line });
          else seen.set(name, offset);
          walk(pair.value, [...path, name]);
        }
      } else if (isSeq(node)) {
        for (const [i, item] of node.items.entries()) walk(item, [...path, i]);
      }
    };
    walk(this.doc.contents, []);
    return found;
  }

  /**
   * Keys and values anywhere in the file that hold a control character: a line break in a value becomes a line
   * of its own in the env and config files written on a node. Only a PEM block (a key or certificate) may hold
   * line breaks.
   */
  controlCharacters(): Diagnostic[] {
    const found: Diagnostic[] = [];
    const check = (node: unknown, path: Path, what: 'key' | 'value'): void => {
      if (!isScalar(node) || typeof node.value !== 'string') return;
      const text = node.value;
      const pem = what === 'value' && text.startsWith('-----BEGIN ');
      const bad = controlCharacter(pem ? text.replace(/\r?\n/g, '') : text);
      if (!bad) return;
      const where = path.length > 0 ? path.join('.') : 'the document';
      const rule = pem ? 'a PEM block may hold line breaks, nothing else' : `a ${what} must be one line of text`;
      found.push(this.#diagnostic(node.range?.[0] ?? 0, 'error', `${where}: the ${what} holds ${bad}; ${rule}`));
    };
    const walk = (node: unknown, path: Path): void => {
      if (isMap(node)) {
        for (const pair of node.items) {
          const name = isScalar(pair.key) ? String(pair.key.value) : '?';
          check(pair.key, [...path, name], 'key');
          walk(pair.value, [...path, name]);
        }
      } else if (isSeq(node)) {
        for (const [i, item] of node.items.entries()) walk(item, [...path, i]);
      } else check(node, path, 'value');
    };
    walk(this.doc.contents, []);
    return found;
  }

  /** A few words for what sits at `path`, for "expected a map, found a list" messages. */
  describe(path: Path): string {
    const { value } = this.locate(path);
    if (!value) return 'nothing';
    if (isMap(value)) return 'a map';
    if (isSeq(value)) return 'a list';
    if (isScalar(value)) {
      if (value.value === null) return 'nothing';
      const text = this.scalarText(path) ?? '';
      const shown = text.length > 40 ? `${text.slice(0, 37)}...` : text;
      return typeof value.value === 'string' ? `the text "${shown}"` : `${typeof value.value} ${shown}`;
    }
    return 'an alias or tag';
  }

  diagnosticAt(offset: number, severity: Severity, message: string): Diagnostic {
    return this.#diagnostic(offset, severity, message);
  }

  #diagnostic(offset: number, severity: Severity, message: string): Diagnostic {
    const { line, col } = this.position(offset);
    return { file: this.file, line, col, severity, message };
  }
}
