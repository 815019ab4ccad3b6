// The vRouter compose file against c-a-d's template (Juniper/contrail-ansible-deployer, tag v5.1,
// playbooks/roles/contrail_vrouter/templates/contrail-vrouter.yaml.j2 and contrail/defaults/main.yml):
// the facts below were read from those files, service by service.

import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { composeFile, containerState, projectContainers } from '../../../../src/roles/linux/compose.js';
import { parseOsFamily } from '../../../../src/roles/linux/os-family.js';
import { linuxPlan } from '../../../../src/roles/linux/plan.js';
import { linuxVerify } from '../../../../src/roles/linux/verify.js';
import { linuxVrouter, vrouterServices } from '../../../../src/roles/linux/vrouter.js';
import { linuxComputeInput } from '../../../support/inputs.js';

type Service = Record<string, unknown> & { volumes?: string[] };

const file = (family: 'RedHat' | 'Debian', environment: Record<string, string> = {}) =>
  parse(composeFile(vrouterServices(linuxComputeInput({ environment, contrailVersion: '5.0.1' }), family))) as {
    version: string;
    services: Record<string, Service>;
  };

describe('the vRouter compose file, as c-a-d writes it', () => {
  it('format 2 with node-init, nodemgr, vrouter-kernel-init and vrouter-agent at the registry and tag', () => {
    const f = file('RedHat');
    expect(f.version).toBe('2');
    expect(Object.keys(f.services)).toEqual(['node-init', 'nodemgr', 'vrouter-kernel-init', 'vrouter-agent']);
    expect(Object.fromEntries(Object.entries(f.services).map(([k, s]) => [k, s.image]))).toEqual({
      'node-init': 'opencontrailnightly/contrail-node-init:5.0.1',
      nodemgr: 'opencontrailnightly/contrail-nodemgr:5.0.1',
      'vrouter-kernel-init': 'opencontrailnightly/contrail-vrouter-kernel-init:5.0.1',
      'vrouter-agent': 'opencontrailnightly/contrail-vrouter-agent:5.0.1',
    });
    for (const s of Object.values(f.services)) {
      expect(s.env_file).toBe('/etc/contrail/common_vrouter.env');
      expect(s.network_mode).toBe('host');
    }
  });

  it('kernel-init and the agent get /usr/src, /lib/modules and /bin; RedHat also the network scripts', () => {
    const redhat = file('RedHat').services;
    const debian = file('Debian').services;
    expect(redhat['vrouter-kernel-init']?.volumes).toEqual([
      '/usr/src:/usr/src',
      '/lib/modules:/lib/modules',
      '/bin:/host/bin',
      '/etc/sysconfig/network-scripts:/etc/sysconfig/network-scripts',
    ]);
    expect(debian['vrouter-kernel-init']?.volumes).toEqual(['/usr/src:/usr/src', '/lib/modules:/lib/modules', '/bin:/host/bin']);
    // Debian hosts build the module: tasks/main.yml "set vrouter kernel init image name".
    expect(debian['vrouter-kernel-init']?.image).toBe('opencontrailnightly/contrail-vrouter-kernel-build-init:5.0.1');
    expect(redhat['vrouter-agent']?.volumes).toEqual([
      '/usr/src:/usr/src',
      '/lib/modules:/lib/modules',
      '/bin:/host/bin',
      '/var/lib/contrail:/var/lib/contrail',
      '/var/run:/var/run',
      '/etc/sysconfig/network-scripts:/etc/sysconfig/network-scripts',
      '/dev/log:/dev/log',
    ]);
    expect(debian['vrouter-agent']?.volumes).not.toContain('/etc/sysconfig/network-scripts:/etc/sysconfig/network-scripts');
  });

  it('privileges, pid, restart, dependencies and environment per service', () => {
    const s = file('RedHat').services;
    const pick = (name: string) => {
      const x = s[name] ?? {};
      return [x.privileged ?? false, x.pid ?? null, x.restart ?? null, x.depends_on ?? [], x.volumes_from ?? [], x.environment ?? []];
    };
    expect(pick('node-init')).toEqual([true, 'host', null, [], [], ['CONTRAIL_STATUS_IMAGE=opencontrailnightly/contrail-status:5.0.1']]);
    expect(pick('nodemgr')).toEqual([false, null, 'on-failure', ['node-init'], ['node-init'], ['NODE_TYPE=vrouter']]);
    expect(pick('vrouter-kernel-init')).toEqual([true, 'host', null, ['node-init'], ['node-init'], []]);
    expect(pick('vrouter-agent')).toEqual([true, 'host', 'always', ['vrouter-kernel-init', 'node-init'], ['node-init'], []]);
    expect(s.nodemgr?.volumes).toEqual(['/var/run/docker.sock:/var/run/docker.sock']);
  });

  it("node-init mounts c-a-d's common_volumes, plus the stats collector's directory when configured", () => {
    const common = [
      '/usr/bin:/host/usr/bin',
      '/etc/contrail/ssl:/etc/contrail/ssl',
      '/etc/sysctl.d:/etc/sysctl.d',
      '/etc/hosts:/etc/hosts',
      '/etc/timezone:/etc/timezone',
      '/etc/localtime:/etc/localtime',
      '/var/log/contrail:/var/log/contrail',
      '/var/crashes:/var/crashes',
    ];
    expect(file('Debian').services['node-init']?.volumes).toEqual(common);
    const stats = file('Debian', { STATS_COLLECTOR_DESTINATION_PATH: '/var/stats/out.log' }).services['node-init']?.volumes;
    expect(stats).toEqual([...common, '/var/stats:/var/stats']);
  });

  it('logging and the interactive flags follow the configuration, with c-a-d defaults', () => {
    const defaults = file('RedHat').services['vrouter-agent'];
    expect([defaults?.logging, defaults?.stdin_open, defaults?.tty]).toEqual([
      { driver: 'json-file', options: { 'max-size': '50m', 'max-file': '10' } },
      true,
      true,
    ]);
    const set = file('RedHat', { COMPUTE_LOG_DRIVER: 'syslog', DEFAULT_DOCKER_LOG_MAX_FILE: '3', TTY: 'false' }).services.nodemgr;
    expect([set?.logging, set?.tty]).toEqual([{ driver: 'syslog', options: { 'max-size': '50m', 'max-file': '3' } }, false]);
  });

  it('a rendered file is kept by its services: the same services give the same text, any change a new one', () => {
    const services = (version: string) => vrouterServices(linuxComputeInput({ contrailVersion: version }), 'RedHat');
    const first = composeFile(services('5.0.1'));
    expect(first).toBe(stringify({ version: '2', services: services('5.0.1') }));
    // More versions than are kept, so 5.0.1's text is rendered again, and 5.0.2's differs by its tags alone.
    for (let i = 0; i < 100; i++) expect(composeFile(services(`6.0.${i}`))).toContain(`contrail-vrouter-agent:6.0.${i}`);
    expect(composeFile(services('5.0.1'))).toBe(first);
    expect(composeFile(services('5.0.2'))).toBe(first.replaceAll(':5.0.1', ':5.0.2'));
    const changed = services('5.0.1');
    (changed.nodemgr as { privileged?: boolean }).privileged = true;
    expect(parse(first).services.nodemgr.privileged).toBeUndefined();
    expect(parse(composeFile(changed)).services.nodemgr.privileged).toBe(true);
  });
});

describe('reading a host', () => {
  it('the OS family from os-release (ID, then ID_LIKE), as Ansible names it', () => {
    expect(parseOsFamily('NAME="CentOS Linux"\nID="centos"\nID_LIKE="rhel fedora"\n')).toBe('RedHat');
    expect(parseOsFamily('ID=rocky\nID_LIKE="rhel centos fedora"\n')).toBe('RedHat');
    expect(parseOsFamily('ID=ubuntu\nID_LIKE=debian\n')).toBe('Debian');
    expect(parseOsFamily('ID=debian\n')).toBe('Debian');
    expect(parseOsFamily('ID=alpine\n')).toBeUndefined();
    expect(parseOsFamily('')).toBeUndefined();
  });

  it('the compose file is remembered by its services, never served for other services', () => {
    const one = (image: string) => ({ agent: { image, network_mode: 'host' as const } });
    // More distinct files than are kept, then the first again: each is its own services' file.
    for (let i = 0; i < 40; i++) expect(parse(composeFile(one(`r/agent:${i}`)))).toEqual({ version: '2', services: one(`r/agent:${i}`) });
    expect(parse(composeFile(one('r/agent:0')))).toEqual({ version: '2', services: one('r/agent:0') });
    const services = one('r/agent:5.0.1');
    const first = composeFile(services);
    (services.agent as { privileged?: boolean }).privileged = true;
    expect(composeFile(services)).not.toBe(first);
    expect(parse(composeFile(services)).services.agent.privileged).toBe(true);
  });

  it("a project's containers from docker ps labels, whatever compose made them; Status as a state", () => {
    // Shape of `docker ps -a --format '{{json .}}'` (Docker 20.10); a v1-made container's name has underscores.
    const lines = [
      '{"Command":"\\"/entrypoint.sh\\"","ID":"1","Image":"r/contrail-vrouter-agent:5.0.1","Labels":"com.docker.compose.config-hash=ab,com.docker.compose.project=vrouter,com.docker.compose.service=vrouter-agent","Names":"vrouter_vrouter-agent_1","Status":"Up 3 hours"}',
      '{"ID":"2","Image":"r/contrail-node-init:5.0.1","Labels":"com.docker.compose.project=vrouter,com.docker.compose.service=node-init","Names":"vrouter-node-init-1","Status":"Exited (0) 3 hours ago"}',
      '{"ID":"3","Image":"r/contrail-nodemgr:5.0.1","Labels":"com.docker.compose.project=vrouter,com.docker.compose.service=nodemgr","Status":"Restarting (1) 2 seconds ago"}',
      'not json',
      '{"ID":"4","Image":"x","Labels":""}',
      // Another compose project on the same host: docker ps answers every compose-made container.
      '{"ID":"5","Image":"redis:7","Labels":"com.docker.compose.project=other,com.docker.compose.service=nodemgr","Status":"Up 1 hour"}',
    ].join('\n');
    expect(Object.fromEntries(projectContainers(lines, 'other'))).toEqual({ nodemgr: 'redis:7 running' });
    expect(Object.fromEntries(projectContainers(lines, 'vrouter'))).toEqual({
      'vrouter-agent': 'r/contrail-vrouter-agent:5.0.1 running',
      'node-init': 'r/contrail-node-init:5.0.1 exited (0)',
      nodemgr: 'r/contrail-nodemgr:5.0.1 restarting (1)',
    });
    expect(containerState('Up 2 minutes (healthy)')).toBe('running');
    expect(containerState('Exited (137) 5 seconds ago')).toBe('exited (137)');
    expect(containerState('Created')).toBe('created');
  });

  it('the vrouter phase reads which Compose the node has; the verified check, which never runs it, does not', () => {
    const ids = (phase: { resources: { facts: { id: string }[] }[] }) => phase.resources.flatMap((r) => r.facts.map((f) => f.id));
    const input = linuxComputeInput();
    expect(ids(linuxVrouter(input))).toContain('compose.cli');
    expect(ids(linuxVerify(input))).not.toContain('compose.cli');
    expect(ids(linuxVerify(input))).toContain('docker.ps');
  });

  it('a re-verify asks docker once: prereqs (is Docker there) and the containers read one docker ps', () => {
    const input = linuxComputeInput();
    const queries = linuxPlan(input).phases.flatMap((p) => p.resources.flatMap((r) => r.facts));
    const commands = new Set(queries.filter((q) => q.sh !== undefined && /\bdocker\b/.test(q.sh)).map((q) => q.sh));
    expect([...commands]).toEqual(["docker ps -a --filter label=com.docker.compose.project --format '{{json .}}'"]);
  });
});
