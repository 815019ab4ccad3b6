// How long a revision of a 10,000-node inventory takes to become a DesiredState (part of revision-to-command).

import { performance } from 'node:perf_hooks';
import { parseInventory } from '../src/inventory/parse-inventory.js';
import { ParseMemo } from '../src/inventory/parse-memo.js';
import { median, type Spread, spread } from './stats.js';

export interface InventoryParseResult {
  nodes: number;
  bytes: number;
  runs: number;
  medianMs: number;
  p90Ms: number;
  spread: Spread;
  /** A commit that changes one node file, parsed with the memo of the last revision (what the daemon does). */
  incrementalMedianMs: number;
  incrementalSpread: Spread;
}

/**
 * A cluster shaped like the scale target: `nodes` computes (every `windowsEvery`th Windows: 8,000 Linux and
 * 2,000 Windows at 10,000) behind one controller, which stands for the OpenStack controller kolla-ansible
 * deployed: the simulated cluster gives it Keystone with the admin password below (groundcrew only checks it).
 */
export function bigInventory(nodes: number, { windowsEvery = 5, pad = 0 } = {}): string {
  const lines = [
    'provider_config:',
    '  bms: { ssh_user: root }',
    '  bms_win: { ansible_user: Administrator, ansible_password: secret }',
    'instances:',
    '  ctrl:',
    '    provider: bms',
    '    ip: 10.255.255.254',
    '    roles: { config: , control: , webui: , openstack: }',
  ];
  for (let i = 0; i < nodes; i++) {
    const windows = i % windowsEvery === 0;
    lines.push(
      `  node-${String(i).padStart(pad, '0')}:`,
      `    provider: ${windows ? 'bms_win' : 'bms'}`,
      `    ip: 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      `    roles: { vrouter: ${windows ? ', win_cnm_plugin: ' : ', openstack_compute: '}}`,
    );
  }
  lines.push(
    'contrail_configuration:',
    '  CONTRAIL_VERSION: "5.0.1"',
    '  AUTH_MODE: keystone',
    '  KEYSTONE_AUTH_ADMIN_PASSWORD: c0ntrail123',
    '  WINDOWS_PHYSICAL_INTERFACE: Ethernet1',
    '  WINDOWS_ENABLE_TEST_SIGNING:',
  );
  return `${lines.join('\n')}\n`;
}

export function runInventoryParse(nodes = 10_000, runs = 7): InventoryParseResult {
  const text = bigInventory(nodes);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    // Without a memo every parse is cold.
    const result = parseInventory({ instances: { path: 'instances.yaml', text: `${text}# run ${i}\n` }, nodeFiles: [] });
    times.push(performance.now() - start);
    if (!result.ok) throw new Error(`benchmark inventory is invalid: ${result.errors[0]?.message}`);
    if (result.state.nodes.length !== nodes + 1) throw new Error(`expected ${nodes + 1} nodes, got ${result.state.nodes.length}`);
  }
  const memo = new ParseMemo();
  const files = (version: string) => ({
    instances: { path: 'instances.yaml', text },
    nodeFiles: [{ path: 'nodes/node-1.yaml', text: `versions:\n  contrail: "${version}"\n` }],
  });
  parseInventory(files('5.0.0'), memo);
  const incremental: number[] = [];
  for (let i = 1; i <= 21; i++) {
    const start = performance.now();
    const result = parseInventory(files(`5.0.${i}`), memo);
    incremental.push(performance.now() - start);
    if (!result.ok) throw new Error(`benchmark inventory is invalid: ${result.errors[0]?.message}`);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN;
  return {
    nodes: nodes + 1,
    bytes: Buffer.byteLength(text),
    runs,
    medianMs: at(0.5),
    p90Ms: at(0.9),
    spread: spread(times),
    incrementalMedianMs: median(incremental),
    incrementalSpread: spread(incremental),
  };
}
