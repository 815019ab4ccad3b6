// Networking in the simulator: HNS and NAT networks, adapters, the vRouter extension and its vif tool.

import { type CmdletSpec, type NativeSpec, obj } from '../shells/powershell/commands.js';
import { PsError, PsUnmodelled } from '../shells/powershell/errors.js';
import { PsObject, toText, wildcardMatch } from '../shells/powershell/values.js';
import type { WindowsHost } from './windows-host.js';
import { FLOW_EXE, RT_EXE, VIF_EXE, VROUTER_EXTENSION } from './windows-paths.js';

type Spec = CmdletSpec<WindowsHost>;

/**
 * Get-HnsNetwork: HNS's own JSON for each network (Name, Type, Id, NetworkAdapterName of a transparent one,
 * Subnets), as hns.psm1 and Server 2019's HostNetworkingService module return it; contrail-windows-ci filters
 * it by NetworkAdapterName (Disable-VRouterExtension, commit 35ad8cf0 "Use HnsNetwork cmdlets").
 */
const getHnsNetwork: Spec = {
  name: 'Get-HnsNetwork',
  params: {},
  run: (host) =>
    host.hnsNetworks().map((n) =>
      obj({
        Name: n.name,
        Type: n.type,
        Id: n.id,
        ...(n.adapter ? { NetworkAdapterName: n.adapter } : {}),
        Subnets: (n.subnets ?? []).map((s) => obj({ AddressPrefix: s.addressPrefix, GatewayAddress: s.gatewayAddress })),
      }),
    ),
};

const removeHnsNetwork: Spec = {
  name: 'Remove-HnsNetwork',
  // winserver2025-ps/HostNetworkingService/Remove-HnsNetwork.md: [-InputObjects] <PSObject[]>, from the pipeline.
  params: { InputObjects: { type: 'object', position: 0 } },
  run(host, args, input) {
    const items = args.InputObjects !== undefined ? [args.InputObjects].flat() : input;
    for (const item of items) {
      const id = item instanceof PsObject ? toText(item.get('Id')) : toText(item);
      const gone = host.state.hnsNetworks.find((n) => n.id === id);
      if (!gone) continue;
      host.removeNetwork(gone.name);
      host.record(`remove-hns-network ${id}`);
    }
    return [];
  },
};

const getNetNat: Spec = {
  name: 'Get-NetNat',
  params: { Name: { type: 'string[]', position: 0 } },
  run(host, args, _input, ctx) {
    const wanted = args.Name as string[] | undefined;
    const found = host.state.netNats.filter((n) => !wanted || wanted.some((w) => w.toLowerCase() === n.toLowerCase()));
    if (wanted && found.length === 0)
      ctx.error(
        new PsError(
          `No MSFT_NetNat objects found with property 'Name' equal to '${wanted[0]}'.`,
          'CmdletizationQuery_NotFound_Name,Get-NetNat',
          'ObjectNotFound',
        ),
      );
    return found.map((n) => obj({ Name: n }));
  },
};

const removeNetNat: Spec = {
  name: 'Remove-NetNat',
  params: { Name: { type: 'string[]', position: 0 }, InputObject: { type: 'object' } },
  supportsShouldProcess: true,
  run(host, args, input, ctx) {
    const names = (args.Name as string[] | undefined) ?? input.map((i) => toText(i instanceof PsObject ? i.get('Name') : i));
    for (const name of names) {
      if (!host.state.netNats.includes(name)) {
        ctx.error(
          new PsError(
            `No MSFT_NetNat objects found with property 'Name' equal to '${name}'.`,
            'CmdletizationQuery_NotFound_Name,Remove-NetNat',
            'ObjectNotFound',
          ),
        );
        continue;
      }
      host.state.netNats = host.state.netNats.filter((n) => n !== name);
      host.record(`remove-netnat ${name}`);
    }
    return [];
  },
};

const getNetAdapter: Spec = {
  name: 'Get-NetAdapter',
  params: { Name: { type: 'string[]', position: 0, aliases: ['ifAlias', 'InterfaceAlias'] } },
  run(host, args, _input, ctx) {
    const all = host.adapters();
    const wanted = args.Name as string[] | undefined;
    const view = (a: (typeof all)[number]) =>
      obj({ Name: a.name, InterfaceAlias: a.name, Status: a.status, ifIndex: a.ifIndex, ifName: a.ifName });
    if (!wanted) return all.map(view);
    const out = [];
    for (const name of wanted) {
      // Wildcards match names (the page's examples 1 and 5: -Name *, -Name "E*2"), and matching none is no error.
      if (/[*?[]/.test(name)) {
        out.push(...all.filter((a) => wildcardMatch(a.name, name)).map(view));
        continue;
      }
      const found = all.find((a) => a.name.toLowerCase() === name.toLowerCase());
      if (found) out.push(view(found));
      else
        ctx.error(
          new PsError(
            `No MSFT_NetAdapter objects found with property 'Name' equal to '${name}'.  Verify the value of the property and retry.`,
            'CmdletizationQuery_NotFound_Name,Get-NetAdapter',
            'ObjectNotFound',
          ),
        );
    }
    return out;
  },
};

function noSwitch(name: string): PsError {
  return new PsError(
    `Hyper-V was unable to find a virtual switch with name "${name}".`,
    'InvalidParameter,Microsoft.HyperV.PowerShell.Commands.GetVMSwitch',
    `InvalidArgument: (${name}:String) [Get-VMSwitch], VirtualizationException`,
    'Get-VMSwitch',
  );
}

/** The Contrail switch, `Layered <adapter>` (the CNM plugin creates it on its configured adapter), while it exists. */
function contrailSwitch(host: WindowsHost): string | undefined {
  const adapter = host.contrailAdapter();
  return host.switchExists() && adapter ? `Layered ${adapter}` : undefined;
}

/** Wildcards as Hyper-V's -Name takes them (`Layered?Ethernet1` in contrail-windows-ci's diagnostic check). */
const like = (pattern: string, text: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  ).test(text);

const getVMSwitch: Spec = {
  name: 'Get-VMSwitch',
  // -Name is one String (Get-VMSwitch.md), wildcards allowed.
  params: { Name: { type: 'string', position: 0, aliases: ['SwitchName'] }, SwitchType: { type: 'string[]' } },
  run(host, args, _input, ctx) {
    const name = contrailSwitch(host);
    const all = name ? [obj({ Name: name, SwitchType: 'External', NetAdapterInterfaceDescription: host.contrailAdapter() })] : [];
    const wanted = args.Name === undefined ? undefined : [toText(args.Name)];
    if (!wanted) return all;
    const found = all.filter((sw) => wanted.some((w) => like(w, toText(sw.get('Name')))));
    for (const w of wanted) if (!/[*?]/.test(w) && !found.some((sw) => like(w, toText(sw.get('Name'))))) ctx.error(noSwitch(w));
    return found;
  },
};

const getVMSwitchExtension: Spec = {
  name: 'Get-VMSwitchExtension',
  params: { VMSwitchName: { type: 'string[]', position: 0, aliases: ['SwitchName'] }, Name: { type: 'string[]' } },
  run(host, args, _input, ctx) {
    if (host.state.features['Hyper-V'] !== 'Installed')
      throw new PsError(
        `The Hyper-V Management Tools could not access an expected WMI class on computer '${host.state.hostname}'. This may indicate that the Virtual Machine Management service is not running.`,
        'InvalidParameter,Microsoft.HyperV.PowerShell.Commands.GetVMSwitchExtension',
        'InvalidOperation',
        'Get-VMSwitchExtension',
      );
    const name = contrailSwitch(host);
    const wantedSwitches = (args.VMSwitchName as string[] | undefined) ?? [];
    const missing = wantedSwitches.find((w) => !name || !like(w, name));
    if (missing) {
      ctx.error(noSwitch(missing));
      return [];
    }
    const installed = host.productOf('vrouter') !== undefined;
    const enabled = installed && !host.state.faults.extensionDisabled;
    const extensions = [obj({ Name: VROUTER_EXTENSION, Enabled: enabled, Running: host.extensionRunning(), SwitchName: name })];
    const wanted = (args.Name as string[] | undefined)?.map((n) => n.toLowerCase());
    return installed ? extensions.filter((e) => !wanted || wanted.includes(toText(e.get('Name')).toLowerCase())) : [];
  },
};

const getNetTCPConnection: Spec = {
  name: 'Get-NetTCPConnection',
  // LocalPort is UInt16[] and State State[] (Get-NetTCPConnection.md); every connection the host has listens.
  params: {
    LocalPort: { type: 'object' },
    State: {
      type: 'string[]',
      values: [
        'Closed',
        'Listen',
        'SynSent',
        'SynReceived',
        'Established',
        'FinWait1',
        'FinWait2',
        'CloseWait',
        'Closing',
        'LastAck',
        'TimeWait',
        'DeleteTCB',
        'Bound',
      ],
    },
  },
  run(host, args, _input, ctx) {
    const ports = args.LocalPort === undefined ? undefined : [args.LocalPort].flat().map((p) => Number(toText(p)));
    const listening = args.State === undefined || (args.State as string[]).includes('Listen');
    const found = host.listeningPorts().filter((p) => listening && (!ports || ports.includes(p)));
    if (found.length === 0)
      ctx.error(
        new PsError(
          `No MSFT_NetTCPConnection objects found with property 'LocalPort' equal to '${toText(args.LocalPort)}'.`,
          'CmdletizationQuery_NotFound_LocalPort,Get-NetTCPConnection',
          'ObjectNotFound',
        ),
      );
    return found.map((p) => obj({ LocalAddress: '0.0.0.0', LocalPort: p, State: 'Listen', OwningProcess: 2000 + p }));
  },
};

/**
 * Test-NetConnection -ComputerName localhost -Port N (NetTCPIP; the diagnostic check's "serves an Agent API on
 * TCP socket"): a TCP connect to this host, which succeeds when something listens on the port. Other hosts and
 * the ICMP, route and common-port forms are refused: the simulator does not model them.
 */
const testNetConnection: Spec = {
  name: 'Test-NetConnection',
  params: {
    ComputerName: { type: 'string', position: 0, aliases: ['RemoteAddress', 'cn'] },
    Port: { type: 'int', aliases: ['RemotePort'] },
  },
  run(host, args) {
    const target = toText(args.ComputerName ?? '').toLowerCase();
    if (!['localhost', '127.0.0.1'].includes(target) || args.Port === undefined)
      throw new PsUnmodelled('Test-NetConnection other than -ComputerName localhost -Port N', 'Test-NetConnection');
    const port = Number(args.Port);
    return [
      obj({
        ComputerName: toText(args.ComputerName),
        RemoteAddress: '::1',
        RemotePort: port,
        TcpTestSucceeded: host.listeningPorts().includes(port),
      }),
    ];
  },
};

/** vif (from the vRouter utilities MSI): the vRouter's interface table, read through ksync. */
const vif: NativeSpec<WindowsHost> = {
  names: ['vif'],
  run(host, argv) {
    if (!host.fs.isFile(VIF_EXE))
      return {
        stdout: '',
        stderr: "vif : The term 'vif' is not recognized as the name of a cmdlet, function, script file, or operable program.\r\n",
        exitCode: 1,
      };
    if (argv[0] !== '--list') return { stdout: '', stderr: 'Usage: vif --list\r\n', exitCode: 1 };
    if (!host.extensionRunning() || host.state.faults.ksyncBroken)
      return {
        stdout: '',
        stderr: 'Unable to open ksync pipe \\\\.\\pipe\\ksync: The system cannot find the file specified.\r\n',
        exitCode: 1,
      };
    // vif prints the NDIS interface names (ifName), which contrail-windows-ci's diagnostic check greps for.
    const ifName = (alias: string | undefined) => host.adapters().find((a) => a.name.toLowerCase() === alias?.toLowerCase())?.ifName;
    const lost = host.state.faults.vifMissing ?? [];
    // The layout of the real tool (test/fixtures/windows/vif-list-vtest.txt): a line per vif, then its Type.
    const entry = (index: number, name: string, type: string) => [
      `vif0/${index}      OS: ${name}`,
      `            Type:${type} HWaddr:00:15:5d:00:00:0${index} IPaddr:0.0.0.0`,
      `            Vrf:0 Mcast Vrf:65535 Flags:L3L2 QOS:0 Ref:5`,
      '',
    ];
    const rows = ['Vrouter Interface Table', ''];
    if (!lost.includes('physical')) rows.push(...entry(0, ifName(host.contrailAdapter()) ?? '?', 'Physical'));
    if (!lost.includes('vhost')) rows.push(...entry(1, ifName(host.vhostAdapter()) ?? '?', 'Host'));
    if (host.isRunning('contrail-vrouter-agent') && !lost.includes('pkt0')) rows.push(...entry(2, 'pkt0', 'Agent'));
    return { stdout: `${rows.join('\r\n')}\r\n`, exitCode: 0 };
  },
};

export const NETWORK_CMDLETS: Spec[] = [
  getHnsNetwork,
  removeHnsNetwork,
  getNetNat,
  removeNetNat,
  getNetAdapter,
  getVMSwitch,
  getVMSwitchExtension,
  getNetTCPConnection,
  testNetConnection,
];
/** flow (vRouter utilities): `flow -l` lists the flow table through the \\\\.\\vrouterFlow device (flow0). */
const flow: NativeSpec<WindowsHost> = {
  names: ['flow'],
  run(host, argv) {
    if (!host.fs.isFile(FLOW_EXE))
      return {
        stdout: '',
        stderr: "flow : The term 'flow' is not recognized as the name of a cmdlet, function, script file, or operable program.\r\n",
        exitCode: 1,
      };
    if (argv[0] !== '-l') return { stdout: '', stderr: 'Usage: flow -l\r\n', exitCode: 1 };
    if (!host.extensionRunning() || host.state.faults.flowBroken)
      return { stdout: '', stderr: 'Error opening device \\\\.\\vrouterFlow: The system cannot find the file specified.\r\n', exitCode: 1 };
    return {
      stdout:
        'Flow table(size 80609280, entries 629760)\r\n\r\nEntries: Created 0 Added 0 Deleted 0 Changed 0 Processed 0 Used Overflow entries 0\r\n',
      exitCode: 0,
    };
  },
};

/**
 * rt (vRouter utilities): `rt --dump 0 --family bridge` reads VRF 0's bridge table through its device
 * (contrail-windows-tools Invoke-DiagnosticCheck.ps1: "bridge table device is usable", exit code 0). Other
 * forms are refused: the simulator models only that one.
 */
const rt: NativeSpec<WindowsHost> = {
  names: ['rt', 'rt.exe'],
  run(host, argv) {
    if (!host.fs.isFile(RT_EXE))
      return {
        stdout: '',
        stderr: "rt : The term 'rt' is not recognized as the name of a cmdlet, function, script file, or operable program.\r\n",
        exitCode: 1,
      };
    if (argv.join(' ') !== '--dump 0 --family bridge')
      return { stdout: '', stderr: `the simulator models only rt --dump 0 --family bridge, not rt ${argv.join(' ')}\r\n`, exitCode: 1 };
    if (!host.extensionRunning() || host.state.faults.bridgeTableBroken)
      return {
        stdout: '',
        stderr: 'Error opening device \\\\.\\vrouterBridge: The system cannot find the file specified.\r\n',
        exitCode: 1,
      };
    return {
      stdout:
        'vRouter bridge table 0/0\r\nIndex       DestMac                  Flags           Label/VNID      Nexthop           Stats\r\n',
      exitCode: 0,
    };
  },
};

export const NETWORK_NATIVES: NativeSpec<WindowsHost>[] = [vif, flow, rt];
