// Compose v1 and v2: the Linux role finds whichever the host has (v2 first), uses it, and says so when
// there is neither. Hosts: the simulator's ubuntu-20.04 (the plugin) and centos-7 (docker-compose 1.x only).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import { COMPOSE_CLI_FACT, COMPOSE_CLI_QUERY, composeCli } from '../../../../src/roles/linux/compose-cli.js';
import { linuxFactsScript, readFactRecords } from '../../../../src/roles/linux/fact-records.js';
import { linuxPlan } from '../../../../src/roles/linux/plan.js';
import { LinuxHost } from '../../../../src/sim/linux/linux-host.js';
import { applyPhase } from '../../../support/apply-phase.js';
import { linuxComputeInput } from '../../../support/inputs.js';
import { Recorder } from '../../../support/recorder.js';
import { setPart } from '../../../support/set-part.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const input = linuxComputeInput({ environment: { CONTROLLER_NODES: '192.0.2.10', PHYSICAL_INTERFACE: 'eth1' } });

async function converge(host: LinuxHost) {
  const exec = new Recorder(new SimExecutor({ host, shells }));
  const outcomes = [];
  for (const phase of linuxPlan(input).phases) outcomes.push(await applyPhase(exec, phase));
  return { exec, outcomes };
}

describe('docker compose (v2) and docker-compose (v1)', () => {
  it('the simulated hosts answer as the real CLIs do', async () => {
    const v1 = LinuxHost.fresh('c7', {}, { profile: 'centos-7' });
    const v2 = LinuxHost.fresh('u20');
    const run = (host: LinuxHost, script: string) => new SimExecutor({ host, shells }).run({ script }, { timeoutMs: 5000 });
    // Docker 18.09 without the plugin: compose is an unknown command.
    expect(await run(v1, 'docker compose version')).toMatchObject({
      exitCode: 1,
      stderr: expect.stringMatching(/'compose' is not a docker command/),
    });
    expect((await run(v1, 'docker-compose version --short')).stdout).toBe('1.22.0\n');
    expect((await run(v2, 'docker-compose version --short')).exitCode).toBe(127);
    expect((await run(v2, 'docker compose version --short')).stdout).toBe('2.20.2\n');
  });

  it('a CentOS 7 host with only docker-compose v1 converges with it; a second pass only reads', async () => {
    const host = LinuxHost.fresh('c7', {}, { profile: 'centos-7' });
    const { exec, outcomes } = await converge(host);
    expect(outcomes.map((o) => [o.phase, o.inDesiredState])).toEqual([
      ['prereqs', true],
      ['vrouter', true],
      ['verify', true],
    ]);
    const up = exec.scripts.map(setPart).filter((s) => / up -d /.test(s));
    expect(up).toEqual(["docker-compose -p 'vrouter' -f '/etc/contrail/vrouter/docker-compose.yaml' up -d --remove-orphans"]);
    // v1 names containers with underscores; RedHat gets the prebuilt kernel-init image and the network scripts.
    expect(Object.keys(host.state.containers).sort()).toEqual([
      'vrouter_node-init_1',
      'vrouter_nodemgr_1',
      'vrouter_vrouter-agent_1',
      'vrouter_vrouter-kernel-init_1',
    ]);
    expect(host.state.containers['vrouter_vrouter-kernel-init_1']?.image).toBe('opencontrailnightly/contrail-vrouter-kernel-init:5.0.1');
    const journal = host.state.journal.length;
    const again = await converge(host);
    expect(again.outcomes.map((o) => o.commands)).toEqual([1, 1, 1]);
    expect(host.state.journal.slice(journal)).toEqual([]);
  });

  it('a host with the v2 plugin uses it, even when docker-compose v1 is there too', async () => {
    const host = LinuxHost.fresh('u20');
    host.state.composeV1Version = '1.29.2';
    const { exec, outcomes } = await converge(host);
    expect(outcomes.every((o) => o.inDesiredState)).toBe(true);
    expect(exec.scripts.map(setPart).filter((s) => / up -d /.test(s))).toEqual([
      "docker compose -p 'vrouter' -f '/etc/contrail/vrouter/docker-compose.yaml' up -d --remove-orphans",
    ]);
    expect(host.state.containers['vrouter-vrouter-kernel-init-1']?.image).toBe(
      'opencontrailnightly/contrail-vrouter-kernel-build-init:5.0.1',
    );
  });

  it('a host with neither fails prereqs with what is missing, before anything is written', async () => {
    const host = LinuxHost.fresh('bare');
    delete host.state.composeVersion;
    const exec = new SimExecutor({ host, shells });
    const prereqs = linuxPlan(input).phases[0];
    await expect(applyPhase(exec, prereqs as never)).rejects.toMatchObject({
      code: 'GC_SET_FAILED',
      message: expect.stringMatching(/neither `docker compose` \(the v2 plugin\) nor `docker-compose` \(v1\) is installed/),
    });
    expect(host.fs.read('/etc/sysctl.d/60-contrail.conf')).toBeUndefined();
  });
});

describe('which Compose, read by real bash', () => {
  // Stand-ins for the two CLIs on PATH, each answering `version --short` as the real ones do (2.20.2, 1.29.2),
  // and writing a line to a log per run: the fact runs the CLIs and nothing else.
  const dir = mkdtempSync(join(tmpdir(), 'gc-compose-cli-'));
  const log = join(dir, 'runs.log');
  const tool = (name: string, body: string) => {
    writeFileSync(join(dir, name), `#!/bin/sh\necho "${name} $*" >> ${log}\n${body}\n`, { mode: 0o755 });
  };
  const read = () => {
    writeFileSync(log, '');
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', linuxFactsScript([COMPOSE_CLI_QUERY])], {
      env: { PATH: `${dir}:/usr/bin:/bin` },
      encoding: 'utf8',
    });
    const facts = readFactRecords(out, new Set([COMPOSE_CLI_FACT]), 'probe');
    return { cli: composeCli(facts) ?? null, runs: readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) };
  };

  it('v2 first, v1 when docker refuses compose, none when neither answers', () => {
    tool('docker', 'if [ "$1" = compose ]; then echo 2.20.2; else exit 1; fi');
    tool('docker-compose', 'echo 1.29.2');
    expect(read()).toEqual({ cli: { command: 'docker compose', version: '2.20.2' }, runs: ['docker compose version --short'] });
    tool('docker', `echo "docker: 'compose' is not a docker command." >&2; exit 1`);
    expect(read()).toEqual({
      cli: { command: 'docker-compose', version: '1.29.2' },
      runs: ['docker compose version --short', 'docker-compose version --short'],
    });
    tool('docker-compose', 'exit 127');
    expect(read().cli).toBeNull();
  });
});
