// The architecture's import rules, checked (`npm run lint` runs this): which folder of src/ may import
// which, and which npm packages only one place may load. Every rule is a row of RULES with its reason.
// An edge today's code needs but the architecture does not want is allowed with a TODO(architecture),
// so it stays visible here until the code no longer needs it.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

type Rule =
  /**
   * `from`: the files a row is about: a folder of src/ (`sim/`), a folder inside one, one file, or `*.ts` (the
   * root files: errors.ts and the like); the most specific row wins. `may`: what they may import, in the same
   * words, plus `npm` (any package but a restricted one), `npm:<name>` (that package) and `*` (anything).
   * `mayType`: what they may import with `import type` only (erased from the build: none of its code runs).
   */
  | { from: string; may: string[]; mayType?: string[]; why: string }
  /** A package only the files under `onlyFrom` may import, whatever their row says. */
  | { package: string; onlyFrom: string[]; why: string };

/** The import rules of docs/architecture.md, one row each. */
export const RULES: Rule[] = [
  { from: '*.ts', may: ['*.ts'], why: 'root files (errors.ts) are the vocabulary every folder shares: they depend on no folder' },
  { from: 'sim/', may: ['sim/', 'npm'], why: 'the simulator stands in for hosts: it knows nothing of groundcrew' },
  { from: 'dataplane/', may: ['dataplane/', '*.ts', 'npm'], why: 'node access is a leaf: the rest of groundcrew builds on it' },
  {
    from: 'dataplane/sim-executor.ts',
    may: ['dataplane/', '*.ts', 'sim/', 'npm'],
    why: 'the one bridge that turns a simulated host into an Executor',
  },
  { from: 'dataplane/native/', may: ['dataplane/', '*.ts', 'npm', 'npm:koffi'], why: 'native libraries are loaded here and only here' },
  { package: 'koffi', onlyFrom: ['dataplane/native/'], why: 'native libraries are loaded in one place, and only on the OS they exist on' },
  {
    from: 'inventory/',
    may: ['inventory/', '*.ts', 'npm:yaml', 'npm:zod'],
    why: 'the inventory is pure data: parsed and checked, touching no node',
  },
  {
    from: 'state-machines/',
    may: ['state-machines/', '*.ts', 'npm:xstate'],
    mayType: ['*'],
    why: 'the machines have no I/O: other folders reach them only as types; the real actors come from .provide()',
  },
  { package: 'xstate', onlyFrom: ['state-machines/', 'reconciler/'], why: 'the node machine, and the reconciler that runs it' },
  {
    from: 'roles/',
    may: ['roles/', '*.ts', 'dataplane/quote.ts', 'npm:yaml'],
    mayType: ['dataplane/executor.ts', 'inventory/'],
    why: 'roles build commands and read facts: an Executor is handed to them, values reach a command only through bashQuote/psQuote',
  },
  {
    from: 'source/',
    may: ['source/', '*.ts', 'inventory/', 'npm'],
    why: "a source produces revisions; it reads a working copy's files with the inventory's reader",
  },
  {
    from: 'reconciler/',
    may: ['reconciler/', '*.ts', 'inventory/', 'roles/', 'state-machines/', 'dataplane/limiter.ts', 'dataplane/fenced-executor.ts', 'npm'],
    mayType: ['dataplane/', 'source/'],
    why: 'the reconciler runs roles through the machines on executors it is handed (gating them behind its snapshots): it never builds a transport, never serves, never simulates',
  },
  {
    from: 'server/',
    may: [
      'server/',
      '*.ts',
      'reconciler/status-store.ts',
      'reconciler/rollout-view.ts',
      'source/webhooks.ts',
      'inventory/secret.ts',
      'npm',
    ],
    mayType: ['reconciler/', 'source/', 'inventory/'],
    why: 'the server shows status and takes webhooks: it never reaches a node, a simulator or the CLI; it redacts by the inventory secret rules',
  },
  {
    from: 'notifications/',
    may: ['notifications/', '*.ts', 'reconciler/rollout-view.ts', 'npm'],
    mayType: ['reconciler/'],
    why: 'notifications read status events and tell the world over HTTP: they never act on the reconciler or reach a node',
  },
  {
    from: 'cluster/',
    may: ['cluster/', '*.ts', 'reconciler/start-pacer.ts', 'dataplane/host-keys.ts', 'npm'],
    mayType: ['reconciler/', 'dataplane/executor.ts'],
    why: "cluster mode shares nodes through etcd: it hands the reconciler a scope and a fence for each command (its guard, put before the executor by cli/), and never drives a node itself (the start pacer, which paces its takes, is the reconciler's run window too); it keeps the SSH host key pins every member shares, in the pin format and store contract of dataplane/host-keys.ts",
  },
  {
    package: 'etcd3',
    onlyFrom: ['cluster/'],
    why: 'etcd is reached in one place: only cluster/ talks to it, and the single-process default never connects to one',
  },
  { from: 'cli/', may: ['*'], why: 'the composition root builds every concrete object' },
];

export interface Violation {
  file: string;
  line: number;
  message: string;
}

interface Import {
  specifier: string;
  line: number;
  typeOnly: boolean;
}

function sources(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
    });
}

/** Every module a file names: import/export ... from, import(), and types written as import('...'). */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (specifier: ts.Node | undefined, at: ts.Node, typeOnly: boolean) => {
    if (!specifier || !ts.isStringLiteralLike(specifier)) return;
    found.push({ specifier: specifier.text, line: sf.getLineAndCharacterOfPosition(at.getStart(sf)).line + 1, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, node, node.importClause?.isTypeOnly ?? false);
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, node, node.isTypeOnly);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression, node, node.isTypeOnly);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], node, false);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, node, true);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** `@scope/name/x` -> `@scope/name`, `yaml/util` -> `yaml`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

function matches(entry: string, target: string): boolean {
  if (entry === '*.ts') return !target.includes('/') && target.endsWith('.ts');
  return entry === '*' || entry === target || (entry.endsWith('/') && target.startsWith(entry));
}

const topOf = (path: string) => path.split('/')[0] ?? path;

/** Checks every .ts file under `<root>/src`; returns what breaks a rule, in file order. */
export function checkImports(root: string): Violation[] {
  const src = join(root, 'src');
  const folderRules = RULES.filter((r) => 'from' in r);
  const packageRules = RULES.filter((r) => 'package' in r);
  const violations: Violation[] = [];
  for (const file of sources(src)) {
    const path = relative(src, file);
    const shown = relative(root, file);
    const rule = folderRules.filter((r) => matches(r.from, path)).sort((a, b) => b.from.length - a.from.length)[0];
    for (const imp of importsOf(file)) {
      const fail = (target: string, why: string) =>
        violations.push({
          file: shown,
          line: imp.line,
          message: `${shown}:${imp.line}: ${topOf(path)} may not import ${target} (rule: ${why})`,
        });
      if (imp.specifier.startsWith('node:') || isBuiltin(imp.specifier)) continue;
      if (!rule) {
        fail(imp.specifier, `no row of RULES in scripts/check-imports.ts covers ${topOf(path)}/: add one`);
        continue;
      }
      const pkg = packageOf(imp.specifier);
      const local = imp.specifier.startsWith('.');
      const target = local ? relative(src, resolve(dirname(file), imp.specifier)).replace(/\.js$/, '.ts') : `npm:${pkg}`;
      if (target.startsWith('..')) {
        fail(target, 'src/ imports nothing outside src/');
        continue;
      }
      const restricted = local ? undefined : packageRules.find((r) => r.package === pkg);
      if (restricted && !restricted.onlyFrom.some((f) => matches(f, path))) {
        fail(pkg, restricted.why);
        continue;
      }
      const allowed = (entry: string) => matches(entry, target) || (entry === 'npm' && !local);
      if (rule.may.some(allowed) || (imp.typeOnly && (rule.mayType ?? []).some(allowed))) continue;
      fail(local ? topOf(target) : pkg, rule.why);
    }
  }
  return violations;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const violations = checkImports(join(import.meta.dirname, '..'));
  for (const v of violations) console.error(v.message);
  if (violations.length > 0) {
    console.error(`check-imports: ${violations.length} import(s) break the architecture's rules (scripts/check-imports.ts)`);
    process.exit(1);
  }
}
