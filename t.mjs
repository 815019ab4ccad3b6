import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';

const require = createRequire(import.meta.url);
await Parser.init();
const lang = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
const p = new Parser();
p.setLanguage(lang);
const t = p.parse(process.argv[2]);
function dump(n, d = 0) {
  const label =
    n.type +
    (n.childCount === 0 || ['word', 'raw_string', 'string', 'variable_name', 'heredoc_body'].includes(n.type)
      ? ' ' + JSON.stringify(n.text)
      : '') +
    (n.isError ? ' ERR' : '') +
    (n.isMissing ? ' MISSING' : '') +
    (n.isNamed ? '' : ' (anon)');
  console.log(' '.repeat(d * 2) + label);
  if (!['word', 'raw_string', 'heredoc_body'].includes(n.type)) for (const c of n.children) dump(c, d + 1);
}
dump(t.rootNode);
console.log('hasError', t.rootNode.hasError);
