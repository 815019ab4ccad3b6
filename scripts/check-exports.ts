// Every name src/ exports is used outside tests (`npm run lint` runs knip with this reporter; knip.jsonc says
// where it looks). A name counts as used when:
// - a file other than its own imports it (or re-exports it, and that is used), and that file belongs to a
//   program: the CLI (package.json bin), a process src/ starts by its path (sim/transports/host-worker.ts), a
//   benchmark, a script, or the lab (npm run lab; the benchmarks run it), with what each of them imports, under
//   test/ too. A test file is no program: a name only tests import is unused;
// - or its own module uses it: exporting it as well, for a test, is allowed.
// Types count as names. What breaks the rule is printed one name a line, `src/x.ts: name` (a file no program
// reaches: `src/x.ts: (the whole file)`), and knip exits non-zero. Remove what is dead, un-export what only its
// module uses, and move what only tests use into test/support/.

import type { Issue, IssueRecords, Reporter } from 'knip';

/** The kinds of unused export knip.jsonc includes; a file no program reaches is `files`. */
const EXPORT_KINDS = ['exports', 'nsExports', 'types', 'nsTypes'] as const;

/** Every issue of one kind, whatever file it is in. */
const all = (records: IssueRecords): Issue[] => Object.values(records).flatMap((byFile) => Object.values(byFile));

const report: Reporter = ({ issues, cwd }) => {
  const shown = (issue: Issue) => (issue.filePath.startsWith(`${cwd}/`) ? issue.filePath.slice(cwd.length + 1) : issue.filePath);
  const lines = [
    ...all(issues.files).map((issue) => `${shown(issue)}: (the whole file)`),
    ...EXPORT_KINDS.flatMap((kind) => all(issues[kind]).map((issue) => `${shown(issue)}: ${issue.symbol}`)),
  ].sort();
  if (lines.length === 0) return;
  for (const line of lines) console.error(line);
  console.error(`check-exports: ${lines.length} exported name(s) nothing but tests use (the rule: scripts/check-exports.ts)`);
};

export default report;
