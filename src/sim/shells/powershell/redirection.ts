// Redirections of a command (about_Redirection): which stream (1 success, 2 error, 3-6 warning/verbose/debug/
// information, * all) goes where (a file, $null, or merged into the success stream with 2>&1).

import type { Node } from './parser.js';
import { unsupported } from './syntax.js';
import { toText } from './values.js';

export type RedirectTarget = { kind: 'merge' } | { kind: 'null' } | { kind: 'file'; path: string; append: boolean };

export interface Redirect {
  stream: string;
  target: RedirectTarget;
  node: Node;
}

/** The grammar reads `2>$null` and `*>$null` (no space) as one bare word; PowerShell reads a redirection. */
const BARE = /^([*1-6]?)(>>?)(.+)$/;

/** The redirection a command element stands for, if it is one. */
export function redirectOf(node: Node, evaluate: (node: Node) => unknown): Redirect | undefined {
  if (node.type === 'generic_token') {
    const m = BARE.exec(node.text);
    if (!m) return undefined;
    const [, stream = '', op = '>', target = ''] = m;
    return {
      stream: stream || '1',
      target: target.toLowerCase() === '$null' ? { kind: 'null' } : { kind: 'file', path: target, append: op === '>>' },
      node,
    };
  }
  if (node.type !== 'redirection') return undefined;
  const merging = node.namedChildren.find((c) => c?.type === 'merging_redirection_operator');
  if (merging) {
    const m = /^([*1-6])>&1$/.exec(merging.text);
    if (!m) throw unsupported(node, `the redirection ${merging.text}`);
    return { stream: m[1] as string, target: { kind: 'merge' }, node };
  }
  const op = node.namedChildren.find((c) => c?.type === 'file_redirection_operator')?.text ?? '';
  const m = /^([*1-6]?)(>>?)$/.exec(op);
  const file = node.namedChildren.find((c) => c?.type === 'redirected_file_name');
  const valueNode = file?.namedChildren.find((c) => c !== null && c.type !== 'command_argument_sep');
  if (!m || !valueNode) throw unsupported(node, 'this redirection');
  const isNull = valueNode.type !== 'generic_token' && evaluate(valueNode) === null && /^\$null$/i.test(valueNode.text.trim());
  const path = valueNode.type === 'generic_token' ? valueNode.text : toText(isNull ? null : evaluate(valueNode));
  return { stream: m[1] || '1', target: isNull ? { kind: 'null' } : { kind: 'file', path, append: m[2] === '>>' }, node };
}

/** Out-File's default in Windows PowerShell 5.1, which `>` uses: UTF-16LE with a byte order mark. */
export function outFileBytes(text: string): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
}
