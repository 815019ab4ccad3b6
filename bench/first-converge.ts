// Fresh Linux computes to converged: groundcrew's reconciler against ansible-playbook running the same
// changes with the same file contents (bench/ansible/converge.yml), each on a lab of its own fresh hosts,
// alternating. After Ansible, groundcrew's own checks confirm the hosts ended in the same state.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { convergeCluster } from '../src/reconciler/converge.js';
import { ssh } from '../test/lab/ssh.js';
import { ansible, computeLab, verifyAll } from './noop-vs-ansible.js';
import { median } from './stats.js';

export interface FirstConvergeResult {
  hosts: number;
  pairs: { groundcrewMs: number; ansibleMs: number; ratio: number }[];
  medianGroundcrewMs: number;
  medianAnsibleMs: number;
  medianRatio: number;
}

const FILES = {
  sysctl_content: '/etc/sysctl.d/60-contrail.conf',
  env_content: '/etc/contrail/common_vrouter.env',
  compose_content: '/etc/contrail/vrouter/docker-compose.yaml',
};

export async function runFirstConverge(hosts = 20, pairs = 3): Promise<FirstConvergeResult> {
  const results: FirstConvergeResult['pairs'] = [];
  for (let i = 0; i < pairs; i++) {
    // groundcrew on fresh hosts.
    const g = await computeLab(hosts);
    let groundcrewMs: number;
    const contents: Record<string, string> = {};
    try {
      const started = performance.now();
      const reports = await convergeCluster(g.state, (n) => ({ exec: g.executors.get(n) as never }), {
        revision: 'bench',
        concurrency: hosts,
      });
      groundcrewMs = performance.now() - started;
      const bad = reports.filter((r) => r.state !== 'verified');
      if (bad.length > 0) throw new Error(`groundcrew: ${bad.map((r) => `${r.node} ${r.state} ${r.reason ?? ''}`).join('; ')}`);
      // The contents Ansible is to write: exactly what groundcrew's roles wrote.
      for (const [name, path] of Object.entries(FILES)) contents[name] = (await ssh(g.lab, g.names[0] as string, `cat ${path}`)).stdout;
    } finally {
      await g.close();
    }

    // Ansible on other fresh hosts, then groundcrew's checks on what it did.
    const a = await computeLab(hosts);
    const dir = mkdtempSync(join(tmpdir(), 'gc-bench-first-'));
    try {
      const hostsIni = [
        '[computes]',
        ...a.names.map(
          (n) => `${n} ansible_host=${a.lab.host(n).address} ansible_user=root ansible_ssh_private_key_file=${a.lab.privateKey}`,
        ),
      ];
      writeFileSync(join(dir, 'hosts.ini'), `${hostsIni.join('\n')}\n`);
      writeFileSync(join(dir, 'vars.json'), JSON.stringify(contents));
      const run = await ansible(dir, 'converge.yml', ['-e', `@${join(dir, 'vars.json')}`]);
      await verifyAll(a.state, a.executors);
      results.push({ groundcrewMs, ansibleMs: run.ms, ratio: run.ms / groundcrewMs });
    } finally {
      await a.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return {
    hosts,
    pairs: results,
    medianGroundcrewMs: median(results.map((r) => r.groundcrewMs)),
    medianAnsibleMs: median(results.map((r) => r.ansibleMs)),
    medianRatio: median(results.map((r) => r.ratio)),
  };
}
