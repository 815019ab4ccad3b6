// `groundcrew cluster status`: the members of a cluster-mode deployment, each with its lease and the nodes
// it drives, read from etcd with the daemon config's `cluster` settings.

import { readClusterView } from '../cluster/cluster-status.js';
import { formatDiagnostic } from '../inventory/diagnostic.js';
import { loadDaemonConfig } from './daemon-config.js';
import { inertLines } from './inert-text.js';
import type { Output } from './inventory-commands.js';

/** Exit codes: 0 shown, 1 etcd did not answer, 2 a bad config or no cluster section. */
export async function clusterStatusCommand(options: { config: string; json?: boolean }, io: Output): Promise<number> {
  const loaded = loadDaemonConfig(options.config);
  if (!loaded.ok) {
    for (const e of loaded.errors) io.err(formatDiagnostic(e));
    return 2;
  }
  const cluster = loaded.config.cluster;
  if (!cluster) {
    io.err(`groundcrew: ${options.config} has no cluster section: this daemon runs alone`);
    return 2;
  }
  let view: Awaited<ReturnType<typeof readClusterView>>;
  try {
    view = await readClusterView(cluster.etcd, cluster.prefix);
  } catch (err) {
    io.err(`groundcrew: etcd (${cluster.etcd.endpoints.join(', ')}) did not answer: ${inertLines((err as Error).message)}`);
    return 1;
  }
  if (options.json) {
    io.out(JSON.stringify(view, null, 2));
    return 0;
  }
  io.out(inertLines(`leader: ${view.leader ?? 'none elected'}`));
  const inForce = view.revision;
  io.out(
    inertLines(`revision in force: ${inForce ? `${inForce.sha.slice(0, 12)} (put by ${inForce.leader} at ${inForce.at})` : 'none yet'}`),
  );
  io.out(`members: ${view.members.length}`);
  for (const m of view.members) {
    const on = m.waiting ?? (m.applied ? `on ${m.applied.slice(0, 12)}` : 'no revision applied yet');
    io.out(
      inertLines(
        `  ${m.name}${m.name === view.leader ? ' (leader)' : ''}  lease ${m.ttl}/${m.grantedTtl} s left  since ${m.since ?? '?'}  ${m.url ?? ''}\n    ${on}\n    nodes (${m.nodes.length}): ${m.nodes.join(', ') || '-'}`,
      ),
    );
  }
  if (view.unowned.length > 0) io.out(inertLines(`owner gone, not yet taken: ${view.unowned.join(', ')}`));
  io.out(inertLines(`disruption budget held by: ${view.slots.join(', ') || 'nobody'}`));
  return 0;
}
