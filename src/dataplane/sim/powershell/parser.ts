// PowerShell parsing with the tree-sitter-powershell grammar (wasm), shared by the simulator and tests.

import { createRequire } from 'node:module';
import { Language, type Node, Parser, type Tree } from 'web-tree-sitter';

let loading: Promise<Parser> | undefined;

/** The one parser, loaded on first use (about 50 ms); parse() itself is synchronous afterwards. */
export function loadPowerShellParser(): Promise<Parser> {
  loading ??= (async () => {
    await Parser.init();
    const wasm = createRequire(import.meta.url).resolve('tree-sitter-powershell/tree-sitter-powershell.wasm');
    const parser = new Parser();
    parser.setLanguage(await Language.load(wasm));
    return parser;
  })();
  return loading;
}

export interface SyntaxProblem {
  line: number;
  col: number;
  token: string;
}

/** The first error or missing node of a tree, for a ParserError message like PowerShell's. */
export function firstSyntaxProblem(tree: Tree): SyntaxProblem | undefined {
  if (!tree.rootNode.hasError) return undefined;
  const visit = (node: Node): Node | undefined => {
    if (node.isError || node.isMissing) return node;
    for (const child of node.children) {
      if (child?.hasError || child?.isMissing) {
        const found = visit(child);
        if (found) return found;
      }
    }
    return undefined;
  };
  const bad = visit(tree.rootNode) ?? tree.rootNode;
  return { line: bad.startPosition.row + 1, col: bad.startPosition.column + 1, token: bad.text.slice(0, 40) };
}

export type { Node, Tree };
