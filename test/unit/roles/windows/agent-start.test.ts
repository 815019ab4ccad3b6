// The agent's start script (agent-start.ts) in real PowerShell: it writes the vhost's current ifName into name=
// of the agent config and runs the agent, as contrail-controller's entrypoint.ps1 does; it refuses to guess
// when it finds no vhost or two. pwsh 7.6 stands in for 5.1 here (the script keeps to 5.1's language: the
// windows-ps51 test), with a C: drive over a scratch directory, Get-NetAdapter as a function answering the
// adapters a Server 2019 host has, and /bin/sh standing for the agent (it prints what it was given).

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { psQuote } from '../../../../src/dataplane/quote.js';
import { agentStartScript } from '../../../../src/roles/windows/agent-start.js';
import { windowsInput } from '../../../support/inputs.js';
import { pwshPath } from '../../../support/pwsh.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-agent-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONF = [
  '[DEFAULT]',
  'platform=windows',
  '',
  '[VIRTUAL-HOST-INTERFACE]',
  'name=ethernet_32777',
  'ip=172.16.0.50/24',
  'physical_interface=ethernet_32769',
];

function start(adapters: { Name: string; ifName: string }[]) {
  const drive = join(dir, `C${Math.random().toString(36).slice(2)}`);
  const etc = join(drive, 'ProgramData', 'Contrail', 'etc', 'contrail');
  mkdirSync(etc, { recursive: true });
  writeFileSync(join(etc, 'contrail-vrouter-agent.conf'), `${CONF.join('\r\n')}\r\n`);
  const agent = join(dir, 'agent.sh');
  writeFileSync(agent, '#!/bin/sh\nprintf "agent %s\\n" "$*"\n', { mode: 0o755 });
  const list = adapters.map((a) => `[pscustomobject]@{ Name = ${psQuote(a.Name)}; ifName = ${psQuote(a.ifName)} }`).join(', ');
  const script = [
    `$null = New-PSDrive -Name C -PSProvider FileSystem -Root ${psQuote(drive)} -Scope Global`,
    `function Get-NetAdapter { @(${list}) }`,
    ...agentStartScript(windowsInput(), agent),
  ].join('\n');
  const run = spawnSync(pwshPath(), ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', script], { encoding: 'utf8' });
  const conf = readFileSync(join(etc, 'contrail-vrouter-agent.conf'), 'utf8').split(/\r?\n/).filter(Boolean);
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, conf };
}

describe('the agent start script', () => {
  it("writes the vhost's ifName into name= and runs the agent with the config", () => {
    const r = start([
      { Name: 'Ethernet0', ifName: 'ethernet_32768' },
      { Name: 'Ethernet1', ifName: 'ethernet_32769' },
      { Name: 'vEthernet (Ethernet1)', ifName: 'ethernet_32778' },
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.conf).toEqual(CONF.filter(Boolean).map((l) => (l.startsWith('name=') ? 'name=ethernet_32778' : l)));
    expect(r.stdout).toBe('agent --config_file=C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-vrouter-agent.conf\n');
  });

  it('finds the 2016 name too, and ignores the vNIC of a transparent network on another adapter', () => {
    const r = start([
      { Name: 'vEthernet (HNSTransparent)', ifName: 'ethernet_32779' },
      { Name: 'vEthernet (Ethernet2)', ifName: 'ethernet_32790' },
    ]);
    expect(r.code).toBe(0);
    expect(r.conf).toContain('name=ethernet_32779');
  });

  it('without a vhost adapter it fails before the agent runs, the config untouched', () => {
    const r = start([{ Name: 'Ethernet1', ifName: 'ethernet_32769' }]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/expected one vhost adapter, found 0/);
    expect(r.stdout).toBe('');
    expect(r.conf).toContain('name=ethernet_32777');
  });
});
