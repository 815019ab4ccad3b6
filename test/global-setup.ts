// Builds dist/ once before the suite: CLI tests run the real `groundcrew` binary as a process.
// Vitest calls a global setup once for the root and once per project (three times, seen): a later build would
// rewrite dist/ while tests already start the binary from it (a half-written module failed an import), so once a run.

import { execFileSync } from 'node:child_process';

export default function setup(): void {
  if (process.env.GC_DIST_BUILT === String(process.pid)) return;
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  process.env.GC_DIST_BUILT = String(process.pid);
}
