// Contrail's diagnostic check broken one component at a time: each entry breaks a converged simulated host (a 5.0
// node: its driver is contrail-docker-driver) and names the verified phase's resource and property that must then
// differ. The in-process check (test/unit/roles/diagnostic-check.test.ts) and the same check in real pwsh
// (diagnostic-real-pwsh.test.ts) share it.

import type { WindowsHost } from '../../src/sim/windows/windows-host.js';

const NAT = { name: 'nat', type: 'NAT', id: 'f00d', driver: 'nat' };
export const BREAKS: [item: string, breaks: (h: WindowsHost) => void, resource: string, property: string][] = [
  [
    'the extension is disabled',
    (h) => {
      h.state.faults.extensionDisabled = true;
    },
    'verify/vrouter-extension',
    'Enabled',
  ],
  [
    'the extension is not running (the switch is gone with the CNM plugin)',
    (h) => h.stopService('contrail-docker-driver', true),
    'verify/vrouter-extension',
    'Running',
  ],
  [
    'the vhost vif is missing',
    (h) => {
      h.state.faults.vifMissing = ['vhost'];
    },
    'verify/vifs',
    'vhostVif',
  ],
  [
    'the physical vif is missing',
    (h) => {
      h.state.faults.vifMissing = ['physical'];
    },
    'verify/vifs',
    'physicalVif',
  ],
  [
    'the pkt0 vif is missing',
    (h) => {
      h.state.faults.vifMissing = ['pkt0'];
    },
    'verify/vifs',
    'pkt0Vif',
  ],
  [
    'the flow device does not open',
    (h) => {
      h.state.faults.flowBroken = true;
    },
    'verify/vifs',
    'flowDevice',
  ],
  ['the agent is stopped', (h) => h.stopService('contrail-vrouter-agent', true), 'verify/agent', 'Status'],
  [
    'the agent does not serve its API on TCP 9091 (a connect fails)',
    (h) => {
      h.state.faults.agentNotListening = true;
    },
    'verify/agent',
    'ServesAgentApi',
  ],
  [
    'the agent asserted (its log says "Assertion failed")',
    (h) => {
      h.fs.put(
        'C:\\ProgramData\\Contrail\\var\\log\\contrail\\contrail-vrouter-agent.log',
        'contrail-vrouter-agent.exe: Assertion failed: (vrf_ != NULL)',
      );
    },
    'verify/agent',
    'LogsWithAssertions',
  ],
  [
    'the ksync device does not open (vif --list fails)',
    (h) => {
      h.state.faults.ksyncBroken = true;
    },
    'verify/vifs',
    'ksyncDevice',
  ],
  [
    'the bridge table device does not open (rt --dump 0 --family bridge fails)',
    (h) => {
      h.state.faults.bridgeTableBroken = true;
    },
    'verify/vifs',
    'bridgeTableDevice',
  ],
  [
    'the CNM plugin does not answer on its pipe (a connect times out)',
    (h) => {
      h.state.faults.pipeNotServing = true;
    },
    'verify/cnm-plugin',
    'PipeServes',
  ],
  [
    'the firewall is on for one profile',
    (h) => {
      h.state.firewall.Public = true;
    },
    'verify/compute-node',
    'FirewallEnabledProfiles',
  ],
  [
    'npcap is installed',
    (h) => {
      h.state.services.npcap = {
        name: 'npcap',
        displayName: 'Npcap Packet Driver (NPCAP)',
        status: 'Running',
        startType: 'Automatic',
        binaryPath: 'System32\\drivers\\npcap.sys',
        dependsOn: [],
      };
    },
    'verify/compute-node',
    'Npcap',
  ],
  [
    'the kernel panicked (a MEMORY.DMP)',
    (h) => {
      h.fs.put('C:\\Windows\\MEMORY.DMP', 'dump');
    },
    'verify/compute-node',
    'MemoryDump',
  ],
  [
    'a minidump was written',
    (h) => {
      h.fs.put('C:\\Windows\\Minidump\\112626-01.dmp', 'dump');
    },
    'verify/compute-node',
    'Minidumps',
  ],
  [
    "an invalid 'Layered' HNS network (left after a reboot)",
    (h) => {
      h.state.hnsNetworks.push({ name: 'Layered Ethernet1', type: 'Transparent', id: '1a1a1a1a-0000-0000-0000-000000000001' });
    },
    'verify/docker',
    'LayeredHnsNetworks',
  ],
  ['nodemgr is stopped', (h) => h.stopService('contrail-vrouter-nodemgr', true), 'verify/nodemgr', 'Status'],
  ['the CNM plugin is stopped', (h) => h.stopService('contrail-docker-driver', true), 'verify/cnm-plugin', 'Status'],
  ['the CNM plugin lost its pipe', (h) => h.stopService('contrail-docker-driver', true), 'verify/cnm-plugin', 'Pipe'],
  [
    'there is no ContrailRootNetwork',
    (h) => {
      h.state.faults.noRootNetwork = true;
    },
    'verify/cnm-plugin',
    'ContrailRootNetwork',
  ],
  [
    'WinNAT runs',
    (h) => {
      const s = h.service('winnat');
      if (s) s.status = 'Running';
    },
    'verify/winnat',
    'Status',
  ],
  [
    'WinNAT starts automatically',
    (h) => {
      const s = h.service('winnat');
      if (s) s.startType = 'Automatic';
    },
    'verify/winnat',
    'StartType',
  ],
  [
    'a NetNat exists',
    (h) => {
      h.state.netNats.push('nat');
      h.state.hnsNetworks.push(NAT);
    },
    'verify/winnat',
    'NetNat',
  ],
  ['Docker is stopped', (h) => h.stopService('docker', true), 'verify/docker', 'Status'],
  [
    'a Contrail network came back with the transparent driver',
    (h) => {
      h.state.hnsNetworks.push({
        name: 'Contrail:0f1e2d3c4b5a69788796',
        type: 'Transparent',
        id: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
        adapter: 'Ethernet1',
        driver: 'transparent',
      });
    },
    'verify/docker',
    'ContrailNetworksWithTransparentDriver',
  ],
  [
    'an orphaned Contrail HNS network (in HNS, not in Docker)',
    (h) => {
      h.state.hnsNetworks.push({ name: 'Contrail:a1b2c3d4e5f60718', type: 'Transparent', id: 'a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90' });
    },
    'verify/docker',
    'OrphanedContrailHnsNetworks',
  ],
];
