// `groundcrew demo`: the example inventory converged on simulated hosts, live in the terminal.

import { type SimExecutor, SimShells } from '../dataplane/sim-executor.js';
import { formatDiagnostic } from '../inventory/diagnostic.js';
import { loadInventory } from '../inventory/load-inventory.js';
import { convergeCluster } from '../reconciler/converge.js';
import type { Output } from './inventory-commands.js';
import { simCluster } from './sim-cluster.js';

export interface DemoOptions {
  rebootMs: number;
  latencyMs: number;
}

export async function demoCommand(repo: string, options: DemoOptions, io: Output): Promise<number> {
  const { root, result } = await loadInventory(repo);
  if (!result.ok) {
    for (const e of result.errors) io.err(formatDiagnostic(e, root));
    return 1;
  }
  const state = result.state;
  const executors = simCluster(state, { shells: await SimShells.create(), rebootMs: options.rebootMs, latencyMs: options.latencyMs });

  io.out(`groundcrew demo: ${state.nodes.length} simulated nodes from ${repo}`);
  io.out(`(no root, no network: every node is an in-process simulator; a reboot takes ${options.rebootMs / 1000} s)\n`);
  const started = Date.now();
  const reports = await convergeCluster(
    state,
    (name) => ({ exec: executors.get(name) as SimExecutor, poll: { initialMs: 100, maxMs: 500 } }),
    {
      revision: 'demo',
      limits: { settleMs: 200, rebootTimeoutMs: Math.max(10_000, options.rebootMs * 10) },
      onTransition: (node, t) => {
        const elapsed = `+${((Date.now() - started) / 1000).toFixed(1)}s`.padStart(7);
        io.out(`${elapsed}  ${node.padEnd(14)} ${t.state.padEnd(11)} ${t.phase ?? ''}${t.detail ? `  ${t.detail}` : ''}`);
      },
    },
  );
  io.out('');
  for (const r of reports) {
    const exec = executors.get(r.node);
    io.out(
      `${r.node.padEnd(14)} ${r.state.padEnd(11)} reboots ${r.reboots}, commands ${exec?.stats.commands ?? 0}${r.reason ? `  ${r.reason}` : ''}`,
    );
  }
  const verified = reports.filter((r) => r.state === 'verified').length;
  io.out(`\n${verified} of ${reports.length} nodes verified in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  io.out(
    'Next: the daemon watching a Git repo, its status page and webhooks (not built yet); `groundcrew plan` shows why each phase runs.',
  );
  return verified === reports.length ? 0 : 1;
}
