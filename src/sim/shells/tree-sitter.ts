// Loads tree-sitter grammars (wasm) once, for the simulated shells and for tests of what roles emit.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Language, type Node, Parser, type Tree } from 'web-tree-sitter';

const parsers = new Map<string, Promise<Parser>>();
let init: Promise<void> | undefined;

/**
 * Where a grammar's wasm is: `dist/grammars/` in the installed package (the build copies them there, so the package
 * needs neither grammar's npm package and its native build), else the development dependency `<module>/<module>.wasm`.
 */
function grammarFile(grammarModule: string): string {
  const shipped = join(import.meta.dirname, '..', '..', '..', 'grammars', `${grammarModule}.wasm`);
  return existsSync(shipped) ? shipped : createRequire(import.meta.url).resolve(`${grammarModule}/${grammarModule}.wasm`);
}

/** A parser for the grammar shipped as `<module>/<module>.wasm` (tree-sitter-powershell, tree-sitter-bash). */
export function loadParser(grammarModule: 'tree-sitter-powershell' | 'tree-sitter-bash'): Promise<Parser> {
  let parser = parsers.get(grammarModule);
  if (!parser) {
    parser = (async () => {
      init ??= Parser.init();
      await init;
      const wasm = grammarFile(grammarModule);
      const p = new Parser();
      p.setLanguage(await Language.load(wasm));
      return p;
    })();
    parsers.set(grammarModule, parser);
  }
  return parser;
}

export interface SyntaxProblem {
  line: number;
  col: number;
  token: string;
}

/**
 * The first error or missing node of a tree, to report a syntax error the way the real shell would. `tolerated`
 * names missing nodes that are the grammar's gap rather than the script's (PowerShell's bareword lists).
 */
export function firstSyntaxProblem(tree: Tree, tolerated?: (node: Node) => boolean): SyntaxProblem | undefined {
  if (!tree.rootNode.hasError) return undefined;
  const visit = (node: Node): Node | undefined => {
    if (tolerated?.(node)) return undefined;
    if (node.isError || node.isMissing) return node;
    for (const child of node.children) {
      if (child?.hasError || child?.isMissing) {
        const found = visit(child);
        if (found) return found;
      }
    }
    return undefined;
  };
  const found = visit(tree.rootNode);
  if (!found && tolerated) return undefined;
  const bad = found ?? tree.rootNode;
  return { line: bad.startPosition.row + 1, col: bad.startPosition.column + 1, token: bad.text.slice(0, 40) };
}

export type { Node, Parser, Tree };

/**
 * Parsed scripts by text. A simulated cluster sends the same fact scripts to every node, so parsing each
 * once, not once per node, is most of what a large simulated cluster costs. Trees are only read.
 */
export class ParseCache {
  readonly #entries = new Map<string, { tree: Tree; problem: SyntaxProblem | undefined }>();

  constructor(
    private readonly parser: Parser,
    private readonly capacity = 512,
    private readonly tolerated?: (node: Node) => boolean,
  ) {}

  parse(script: string): { tree: Tree; problem: SyntaxProblem | undefined } {
    const hit = this.#entries.get(script);
    if (hit) {
      // Most recently used last: the oldest entry is the first to go.
      this.#entries.delete(script);
      this.#entries.set(script, hit);
      return hit;
    }
    const tree = this.parser.parse(script);
    if (!tree) throw new Error('tree-sitter returned no tree');
    const entry = { tree, problem: firstSyntaxProblem(tree, this.tolerated) };
    this.#entries.set(script, entry);
    if (this.#entries.size > this.capacity) {
      const [oldest, old] = this.#entries.entries().next().value as [string, { tree: Tree }];
      this.#entries.delete(oldest);
      old.tree.delete();
    }
    return entry;
  }
}
