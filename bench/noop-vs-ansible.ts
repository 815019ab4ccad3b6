// Re-verifying converged Linux computes over real SSH: groundcrew (every phase's test in one read per host)
// against ansible-playbook running the same checks (bench/ansible/verify.yml), on the same lab hosts,
// alternating, with forks = hosts, pipelining and ControlPersist. Needs root (the lab) and ansible-core.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { HostKeyStore } from '../src/dataplane/host-keys.js';
import { Limiter } from '../src/dataplane/limiter.js';
import { SshExecutor } from '../src/dataplane/ssh-executor.js';
import type { DesiredState } from '../src/inventory/desired-state.js';
import { parseInventory } from '../src/inventory/parse-inventory.js';
import { convergeCluster } from '../src/reconciler/converge.js';
import { roleInput } from '../src/reconciler/role-input.js';
import { testPhases } from '../src/roles/phase.js';
import { planNode } from '../src/roles/plan.js';
import { Lab } from '../test/lab/lab.js';
import { ssh } from '../test/lab/ssh.js';
import { countForks, type FloorResult, factsScript, floorOnce, floorScript, floorWithToolsScript, toolCommands } from './noop-floor.js';
import { median, type Spread, spread } from './stats.js';

export interface PairResult {
  groundcrewMs: number;
  ansibleMs: number;
  groundcrewCpuMs: number;
  ansibleCpuMs: number;
  ratio: number;
}

export interface NoopResult {
  hosts: number;
  firstConvergeMs: number;
  pairs: PairResult[];
  medianGroundcrewMs: number;
  medianAnsibleMs: number;
  medianRatio: number;
  spread: { groundcrewMs: Spread; ansibleMs: Spread; ratio: Spread };
  medianGroundcrewCpuMs: number;
  medianAnsibleCpuMs: number;
  /** The no-op floor beside groundcrew's re-verify, and what the facts script forks per host. */
  floor: FloorResult;
}

/** ansible-playbook, with its CPU time (and its children's: the ssh processes) from getrusage. */
export function ansible(dir: string, playbookName = 'verify.yml', extra: string[] = []): Promise<{ ms: number; cpuMs: number }> {
  const started = performance.now();
  const wrapper =
    'import resource, subprocess, sys\n' +
    'r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n' +
    'u = resource.getrusage(resource.RUSAGE_CHILDREN)\n' +
    'sys.stdout.write(r.stdout[-3000:])\n' +
    'print("CPU", (u.ru_utime + u.ru_stime) * 1000)\n' +
    'sys.exit(r.returncode)\n';
  const playbook = join(import.meta.dirname, 'ansible', playbookName);
  return new Promise((resolve, reject) =>
    execFile(
      'python3',
      ['-c', wrapper, 'ansible-playbook', '-i', join(dir, 'hosts.ini'), ...extra, playbook],
      { env: { ...process.env, ANSIBLE_CONFIG: join(import.meta.dirname, 'ansible', 'ansible.cfg'), HOME: dir }, maxBuffer: 1 << 24 },
      (err, stdout) => {
        if (err) return reject(new Error(`ansible-playbook failed:\n${stdout}`));
        resolve({ ms: performance.now() - started, cpuMs: Number(/CPU ([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN) });
      },
    ),
  );
}

/** A lab of `hosts` fresh Linux computes, its desired state, and an SSH executor per host. */
export async function computeLab(hosts: number) {
  const names = Array.from({ length: hosts }, (_, i) => `compute-${i + 1}`);
  const lab = await Lab.start({ hosts: names.map((name) => ({ name, os: 'linux' as const })) });
  const text = [
    'provider_config:',
    '  bms: { ssh_user: root }',
    'instances:',
    ...names.flatMap((n) => [`  ${n}:`, '    provider: bms', `    ip: ${lab.host(n).address}`, '    roles: { vrouter: }']),
    'global_configuration: { CONTAINER_REGISTRY: opencontrailnightly }',
    'contrail_configuration:',
    '  CONTRAIL_VERSION: "5.0.1"',
    '  CONTROLLER_NODES: 192.0.2.10',
    '  PHYSICAL_INTERFACE: eth0',
    '',
  ].join('\n');
  const parsed = parseInventory({ instances: { path: 'instances.yaml', text }, nodeFiles: [] });
  if (!parsed.ok) throw new Error(`benchmark inventory: ${parsed.errors[0]?.message}`);
  const state = { ...parsed.state, rollout: { ...parsed.state.rollout, maxUnavailable: '100%' } };
  const connections = new Limiter(hosts * 2);
  const hostKeys = new HostKeyStore(null);
  const executors = new Map<string, SshExecutor>();
  for (const n of names) {
    const host = lab.host(n);
    executors.set(
      n,
      new SshExecutor({
        target: { os: 'linux', host: host.address, username: 'root', privateKeyPath: lab.privateKey },
        hostKeys,
        connections,
      }),
    );
  }
  const close = async () => {
    for (const e of executors.values()) await e.close();
    await lab.stop();
  };
  return { lab, names, state, executors, close };
}

/** Every phase of every node tested in one read per node; throws when one is not in its desired state. */
export async function verifyAll(state: DesiredState, executors: Map<string, SshExecutor>): Promise<void> {
  await Promise.all(
    state.nodes.map(async (node) => {
      // One read of the node for every phase's test: nothing changed, one command per host.
      const { phases } = planNode(roleInput(state, node));
      const tests = await testPhases(executors.get(node.name) as SshExecutor, phases);
      const off = tests.filter((t) => !t.inDesiredState).map((t) => t.phase);
      if (off.length > 0) throw new Error(`${node.name}: ${off.join(', ')} not in the desired state`);
    }),
  );
}

export async function runNoopVsAnsible(hosts = 20, pairs = 5): Promise<NoopResult> {
  const { lab, names, state, executors, close } = await computeLab(hosts);
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-ansible-'));
  try {
    const convergeStarted = performance.now();
    const reports = await convergeCluster(state, (n) => ({ exec: executors.get(n) as SshExecutor }), {
      revision: 'bench',
      concurrency: hosts,
    });
    const firstConvergeMs = performance.now() - convergeStarted;
    const bad = reports.filter((r) => r.state !== 'verified');
    if (bad.length > 0) throw new Error(`first converge: ${bad.map((r) => `${r.node} ${r.state} ${r.reason ?? ''}`).join('; ')}`);

    // What the files should hold, for Ansible's checksum comparisons: what groundcrew's roles want.
    const sha1 = async (n: string, path: string) => (await ssh(lab, n, `sha1sum ${path}`)).stdout.split(' ')[0];
    const lines = ['[computes]'];
    for (const n of names) {
      const [env, compose, sysctl] = await Promise.all([
        sha1(n, '/etc/contrail/common_vrouter.env'),
        sha1(n, '/etc/contrail/vrouter/docker-compose.yaml'),
        sha1(n, '/etc/sysctl.d/60-contrail.conf'),
      ]);
      const containers = (await ssh(lab, n, 'docker compose -f /etc/contrail/vrouter/docker-compose.yaml ps --format json')).stdout;
      const count = (JSON.parse(containers) as unknown[]).length;
      lines.push(
        `${n} ansible_host=${lab.host(n).address} ansible_user=root ansible_ssh_private_key_file=${lab.privateKey} env_sha1=${env} compose_sha1=${compose} sysctl_sha1=${sysctl} expected_containers=${count} contrail_version=5.0.1`,
      );
    }
    writeFileSync(join(dir, 'hosts.ini'), `${lines.join('\n')}\n`);

    const groundcrew = async () => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      await verifyAll(state, executors);
      const used = process.cpuUsage(cpu);
      return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
    };

    // Warm both: groundcrew's connections are open already; Ansible opens its ControlPersist masters.
    await groundcrew();
    await ansible(dir);
    const results: PairResult[] = [];
    for (let i = 0; i < pairs; i++) {
      const g = await groundcrew();
      const a = await ansible(dir);
      results.push({ groundcrewMs: g.ms, ansibleMs: a.ms, groundcrewCpuMs: g.cpuMs, ansibleCpuMs: a.cpuMs, ratio: a.ms / g.ms });
    }
    // The floor, alternating with groundcrew's re-verify; the facts script's forks counted on one host.
    const [first] = names as [string];
    const firstExec = executors.get(first) as SshExecutor;
    const facts = await factsScript(state, first, firstExec);
    const perHost = await countForks(firstExec, facts.script, facts.stdin);
    const script = floorScript(perHost.paths);
    const floorForks = (await countForks(firstExec, script)).forks;
    const commands = toolCommands(state, first);
    const tools = floorWithToolsScript(perHost.paths, commands);
    const toolForks = (await countForks(firstExec, tools)).forks;
    // On the lab, docker is a shim into the simulator running in this process: not a cost groundcrew chose.
    const realCommands = commands.filter((c) => !/^docker\b/.test(c));
    const realTools = floorWithToolsScript(perHost.paths, realCommands);
    await floorOnce(executors, script);
    await floorOnce(executors, tools);
    await floorOnce(executors, realTools);
    const floorPairs: { g: number; f: number; t: number; r: number }[] = [];
    for (let i = 0; i < pairs; i++)
      floorPairs.push({
        g: (await groundcrew()).ms,
        f: await floorOnce(executors, script),
        t: await floorOnce(executors, tools),
        r: await floorOnce(executors, realTools),
      });
    const floor: FloorResult = {
      perHost,
      floorForks,
      floorReads: perHost.paths.length,
      floorMs: spread(floorPairs.map((p) => p.f)),
      groundcrewMs: spread(floorPairs.map((p) => p.g)),
      ratio: spread(floorPairs.map((p) => p.g / p.f)),
      withTools: {
        commands,
        forks: toolForks,
        ms: spread(floorPairs.map((p) => p.t)),
        ratio: spread(floorPairs.map((p) => p.g / p.t)),
      },
      withRealTools: {
        commands: realCommands,
        ms: spread(floorPairs.map((p) => p.r)),
        ratio: spread(floorPairs.map((p) => p.g / p.r)),
      },
    };
    return {
      floor,
      hosts,
      firstConvergeMs,
      pairs: results,
      medianGroundcrewMs: median(results.map((r) => r.groundcrewMs)),
      medianAnsibleMs: median(results.map((r) => r.ansibleMs)),
      medianRatio: median(results.map((r) => r.ratio)),
      spread: {
        groundcrewMs: spread(results.map((r) => r.groundcrewMs)),
        ansibleMs: spread(results.map((r) => r.ansibleMs)),
        ratio: spread(results.map((r) => r.ratio)),
      },
      medianGroundcrewCpuMs: median(results.map((r) => r.groundcrewCpuMs)),
      medianAnsibleCpuMs: median(results.map((r) => r.ansibleCpuMs)),
    };
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
}
