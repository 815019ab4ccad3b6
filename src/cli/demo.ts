// `groundcrew demo`: an inventory repo (the example by default) copied into a temporary Git repo, the daemon
// following it on simulated hosts, the status page live on 127.0.0.1. Commit in that repo and watch it roll.

import { randomBytes } from 'node:crypto';
import { chmodSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { simpleGit } from 'simple-git';
import { formatDiagnostic } from '../inventory/diagnostic.js';
import { loadInventory } from '../inventory/load-inventory.js';
import type { StatusStore } from '../reconciler/status-store.js';
import { startDaemon } from './daemon.js';
import { DaemonConfigSchema } from './daemon-config.js';
import { inert, inertLines } from './inert-text.js';
import type { Output } from './inventory-commands.js';
import { rootLogger } from './logger.js';

export interface DemoOptions {
  repo: string;
  port: number;
  rebootMs: number;
  latencyMs: number;
}

/** A post-commit hook that signs a generic webhook for each commit: commits reach the daemon at once. */
function hookScript(url: string, secretFile: string): string {
  return `import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
const sha = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
const body = JSON.stringify({ ref: 'refs/heads/main', after: sha });
const signature = 'sha256=' + createHmac('sha256', readFileSync(${JSON.stringify(secretFile)}, 'utf8').trim()).update(body).digest('hex');
await fetch(${JSON.stringify(`${url}/hooks/generic`)}, {
  method: 'POST', body, signal: AbortSignal.timeout(2000),
  headers: { 'content-type': 'application/json', 'x-signature': signature, 'x-delivery-id': sha + '-' + Date.now() },
}).catch(() => {});
`;
}

function printTransitions(status: StatusStore, io: Output): void {
  const started = Date.now();
  let announced = '';
  status.on('change', (e) => {
    if (e.type === 'revision') {
      io.out(
        e.revision.accepted
          ? `\nrevision ${e.revision.sha.slice(0, 12)} "${inert(e.revision.subject)}" accepted`
          : `\nrevision ${e.revision.sha.slice(0, 12)} REJECTED, nodes stay on the last good one:\n  ${(e.revision.errors ?? []).map(inert).join('\n  ')}`,
      );
      return;
    }
    if (e.type !== 'node' || !e.transition || e.transition.event) return;
    const t = e.transition;
    const elapsed = `+${((Date.now() - started) / 1000).toFixed(1)}s`.padStart(8);
    io.out(
      `${elapsed}  ${inert(e.node.name).padEnd(14)} ${inert(t.state).padEnd(11)} ${inert(t.phase ?? t.reboot)}${t.detail ? `  ${inert(t.detail)}` : ''}`,
    );
    const nodes = status.list().filter((n) => n.state !== 'orphaned' && n.state !== 'removed');
    const verified = nodes.filter((n) => n.state === 'verified' && n.lastAppliedRevision === n.desiredRevision).length;
    const key = `${status.current()?.sha}:${verified}`;
    if (verified === nodes.length && key !== announced) {
      announced = key;
      io.out(`${elapsed}  ${verified} of ${nodes.length} nodes verified`);
    }
  });
}

/**
 * How the operator runs this CLI again: `groundcrew` when that is the program on the PATH that runs now (an
 * installed package), else `node` and its script (`npm run demo`, a checkout).
 */
export function cliCommand(script: string, path: string): string {
  const onPath = path.split(delimiter).some((dir) => dir !== '' && dir === dirname(script));
  return onPath && script.endsWith('/groundcrew') ? 'groundcrew' : `node ${script}`;
}

export async function demoCommand(options: DemoOptions, io: Output): Promise<number> {
  const { root, result } = await loadInventory(options.repo);
  if (!result.ok) {
    for (const e of result.errors) io.err(inertLines(formatDiagnostic(e, root)));
    return 1;
  }
  const work = mkdtempSync(join(tmpdir(), 'groundcrew-demo-'));
  const repo = join(work, 'repo');
  cpSync(options.repo, repo, { recursive: true, filter: (src) => !/[/\\]\.git([/\\]|$)/.test(src) });
  const git = simpleGit(repo);
  await git.init(['--initial-branch=main']);
  await git.addConfig('user.name', 'groundcrew demo').addConfig('user.email', 'demo@groundcrew.invalid');
  await git.add('.').commit('the example inventory');
  const secretFile = join(work, 'webhook-secret');
  writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600 });

  const config = DaemonConfigSchema.parse({
    source: { url: repo, branch: 'main', pollInterval: '5s' },
    stateDir: join(work, 'state'),
    listen: `127.0.0.1:${options.port}`,
    webhooks: { generic: { secretFile } },
    transport: 'sim',
    sim: { rebootSeconds: options.rebootMs / 1000, latencyMs: options.latencyMs },
    reboot: { timeout: '120s', settle: '1s' },
    resyncInterval: '60s',
    log: { level: 'warn' },
  });
  const log = rootLogger('warn', process.stderr);
  const onListening = (url: string, status: StatusStore) => {
    const hook = join(repo, '.git', 'hooks', 'post-commit');
    writeFileSync(join(work, 'notify.mjs'), hookScript(url, secretFile));
    writeFileSync(hook, `#!/bin/sh\nexec "${process.execPath}" "${join(work, 'notify.mjs')}"\n`);
    chmodSync(hook, 0o755);
    io.out(
      `groundcrew demo: ${result.state.nodes.length} simulated nodes (no root, no network), a reboot takes ${options.rebootMs / 1000} s`,
    );
    io.out(`  status page:  ${url}/`);
    io.out(`  the repo:     ${repo}  (a post-commit hook sends a signed webhook; the daemon also polls)`);
    io.out('  try, in another terminal:');
    io.out(`    cd ${repo}`);
    io.out(`    sed -i 's/5.0.1/5.0.2/' nodes/win-compute-1.yaml && git commit -qam 'upgrade win-compute-1'`);
    io.out('    git revert --no-edit HEAD          # and watch it roll back');
    const cli = cliCommand(process.argv[1] ?? 'groundcrew', process.env.PATH ?? '');
    io.out(`    ${cli} status --url ${url}`);
    io.out(`    ${cli} reconcile --url ${url}     # acting takes the API token`);
    io.out(`  API token:    ${join(config.stateDir, 'api-token')}  (0600; the CLI on this host finds it;`);
    io.out('                elsewhere: --token-file FILE, or an Authorization: Bearer header)');
    io.out('  Ctrl-C stops the demo and removes its temporary files.');
    printTransitions(status, io);
  };
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  try {
    daemon = await startDaemon(config, { log, onListening });
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    if ((err as { code?: string }).code === 'EADDRINUSE') {
      io.err(`groundcrew demo: port ${options.port} is in use; try: npm run demo -- --port ${options.port + 1}`);
      return 1;
    }
    throw err;
  }

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  io.out('\nstopping');
  await daemon.stop();
  rmSync(work, { recursive: true, force: true });
  return 0;
}
