// Per-host-subnet overlay on Windows (Rancher's design): IP routing on, a transparent Docker network with
// the node's subnet, its gateway on the host adapter, routes to the other subnets, portproxy for published
// ports. Routes and port proxies are shared tables: a record on the node lists what groundcrew put there,
// so a change touches those entries only.

import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import type { OverlayInput } from '../input.js';
import { type Phase, setByCommand } from '../phase.js';
import { compare, type Facts, type Resource } from '../resource.js';
import { hnsNetwork, hnsNetworkNames } from './hns-networks.js';
import { factLines, parsePortProxies } from './parsers.js';

export const OVERLAY_NETWORK = 'gc-overlay';
/**
 * The host's vNIC on the transparent network, where the gateway address lives: Windows names it after the
 * adapter the network binds, `vEthernet (<adapter>)`.
 */
export function overlayVnic(input: OverlayInput): string {
  return `vEthernet (${input.adapter ?? DEFAULT_ADAPTER})`;
}
export const OVERLAY_RECORD = 'C:\\ProgramData\\groundcrew\\overlay.json';
/** The adapter a transparent network binds and peer routes leave by, unless WINDOWS_PHYSICAL_INTERFACE says. */
const DEFAULT_ADAPTER = 'Ethernet0';
const TCPIP = 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters';

interface OverlayRecord {
  routes: string[];
  ports: string[];
}

/** The record's text: [string], as Get-Content's NoteProperties would make 5.1's ConvertTo-Json send an object. */
const RECORD_FACT = {
  id: 'overlay.record',
  ps: `if (Test-Path -Path ${psQuote(OVERLAY_RECORD)}) { [string](Get-Content -Raw -Path ${psQuote(OVERLAY_RECORD)}) } else { $null }`,
};

function record(facts: Facts): OverlayRecord {
  try {
    const parsed = JSON.parse(String(facts.get('overlay.record') ?? '{}')) as Partial<OverlayRecord>;
    return { routes: parsed.routes ?? [], ports: parsed.ports ?? [] };
  } catch {
    return { routes: [], ports: [] };
  }
}

function writeRecord(value: OverlayRecord): string {
  return `New-Item -ItemType Directory -Force -Path 'C:\\ProgramData\\groundcrew' | Out-Null\nSet-Content -Path ${psQuote(OVERLAY_RECORD)} -Value ${psQuote(JSON.stringify(value))} -Encoding ASCII`;
}

const union = (a: string[], b: string[]) => [...new Set([...a, ...b])].sort();

function ipRouting(): Resource {
  return {
    name: 'overlay/ip-routing',
    facts: [
      {
        id: 'overlay.ipEnableRouter',
        ps: `(Get-ItemProperty -Path ${psQuote(TCPIP)} -Name IPEnableRouter -ErrorAction SilentlyContinue).IPEnableRouter`,
      },
      {
        id: 'overlay.remoteAccess',
        ps: '$s = Get-Service -Name RemoteAccess -ErrorAction SilentlyContinue; if ($s) { [pscustomobject]@{ status = $s.Status.ToString(); startType = $s.StartType.ToString() } } else { $null }',
      },
    ],
    test: (facts) => {
      const service = facts.get('overlay.remoteAccess') as { status: string; startType: string } | null;
      return compare({
        IPEnableRouter: [facts.get('overlay.ipEnableRouter') ?? null, 1],
        RemoteAccess: [service ? `${service.startType}/${service.status}` : null, 'Automatic/Running'],
      });
    },
    async set({ exec, signal }) {
      return setByCommand(
        exec,
        [
          `Set-ItemProperty -Path ${psQuote(TCPIP)} -Name IPEnableRouter -Value 1 -Type DWord`,
          'Set-Service -Name RemoteAccess -StartupType Automatic',
          'Start-Service -Name RemoteAccess',
        ].join('\n'),
        'enable IP routing',
        { signal },
      );
    },
  };
}

function network(input: OverlayInput): Resource {
  const wanted = { type: 'Transparent', subnet: input.subnet, gateway: input.gateway };
  const adapter = input.adapter ?? DEFAULT_ADAPTER;
  // The adapter to bind, and its vNIC once bound: neither may carry the node's own address.
  const management = (facts: Facts) =>
    input.hostAddress !== undefined && factLines(facts.get('overlay.adapterAddresses')).includes(input.hostAddress);
  return {
    name: 'overlay/network',
    facts: [
      {
        id: 'overlay.network',
        ps: hnsNetwork(OVERLAY_NETWORK),
      },
      {
        id: 'overlay.adapterAddresses',
        ps: `@(Get-NetIPAddress -InterfaceAlias ${psQuote(adapter)},${psQuote(overlayVnic(input))} -AddressFamily IPv4 -ErrorAction SilentlyContinue | ForEach-Object { $_.IPAddress })`,
      },
    ],
    test: (facts) => {
      const n = facts.get('overlay.network') as typeof wanted | null;
      return compare({
        Network: [n ? { type: n.type, subnet: n.subnet, gateway: n.gateway } : null, wanted],
        NotTheManagementAdapter: [!management(facts), true],
      });
    },
    async set({ exec, facts, signal }) {
      if (management(facts))
        throw errors.GC_SET_FAILED(
          `overlay: adapter ${adapter} carries the node's own address ${input.hostAddress}: binding it would move that address to a vNIC and cut the node off; name the data interface in nodes/<node>.yaml overlay_interface`,
        );
      // A network's subnet cannot be changed in place: it is removed and made again.
      const steps = [
        ...(facts.get('overlay.network')
          ? [`docker network rm ${OVERLAY_NETWORK}`, 'if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }']
          : []),
        `docker network create -d transparent --subnet ${psQuote(input.subnet)} --gateway ${psQuote(input.gateway)} -o ${psQuote(`com.docker.network.windowsshim.interface=${input.adapter ?? DEFAULT_ADAPTER}`)} ${OVERLAY_NETWORK}`,
        'exit $LASTEXITCODE',
      ];
      return setByCommand(exec, steps.join('\n'), `transparent network ${input.subnet}`, { signal });
    },
  };
}

function gateway(input: OverlayInput): Resource {
  const address = `${input.gateway}/${input.prefixLength}`;
  return {
    name: 'overlay/gateway',
    facts: [
      {
        id: 'overlay.addresses',
        ps: `@(Get-NetIPAddress -InterfaceAlias ${psQuote(overlayVnic(input))} -AddressFamily IPv4 -ErrorAction SilentlyContinue | ForEach-Object { "$($_.IPAddress)/$($_.PrefixLength)" })`,
      },
    ],
    test: (facts) => {
      const list = factLines(facts.get('overlay.addresses'));
      return compare({ Gateway: [list.includes(address) ? address : null, address] });
    },
    async set({ exec, signal }) {
      return setByCommand(
        exec,
        `New-NetIPAddress -InterfaceAlias ${psQuote(overlayVnic(input))} -IPAddress ${psQuote(input.gateway)} -PrefixLength ${input.prefixLength} | Out-Null`,
        `gateway ${address}`,
        { signal },
      );
    },
  };
}

/**
 * A route as text: `prefix nexthop alias`. Peer routes leave by the management adapter (the one that carries
 * the node's own address, read from the host; `Ethernet0` when it cannot be told), service routes by the vNIC.
 */
export function wantedWindowsRoutes(input: OverlayInput, management = DEFAULT_ADAPTER): Map<string, string> {
  return new Map(input.routes.map((r) => [r.prefix, `${r.prefix} ${r.via} ${r.kind === 'peer' ? management : overlayVnic(input)}`]));
}

function routes(input: OverlayInput): Resource {
  const wantedOf = (facts: Facts) => wantedWindowsRoutes(input, (facts.get('overlay.managementAlias') as string | null) ?? DEFAULT_ADAPTER);
  const read = (facts: Facts) => {
    const lines = factLines(facts.get('overlay.routes'));
    const mine = new Set([...record(facts).routes, ...wantedOf(facts).keys()]);
    return lines.filter((l) => mine.has(l.split(' ')[0] as string));
  };
  const address = psQuote(input.hostAddress ?? '');
  return {
    name: 'overlay/routes',
    facts: [
      {
        id: 'overlay.routes',
        ps: '@(Get-NetRoute -AddressFamily IPv4 -ErrorAction SilentlyContinue | ForEach-Object { "$($_.DestinationPrefix) $($_.NextHop) $($_.InterfaceAlias)" })',
      },
      {
        id: 'overlay.managementAlias',
        ps: `$a = Get-NetIPAddress -AddressFamily IPv4 -ErrorAction SilentlyContinue | Where-Object { $_.IPAddress -eq ${address} } | Select-Object -First 1; if ($a) { $a.InterfaceAlias } else { $null }`,
      },
      RECORD_FACT,
    ],
    test: (facts) => compare({ Routes: [read(facts).sort(), [...wantedOf(facts).values()].sort()] }),
    async set({ exec, facts, signal }) {
      const have = read(facts);
      const wanted = wantedOf(facts);
      const steps = [writeRecord({ ...record(facts), routes: union(record(facts).routes, [...wanted.keys()]) })];
      for (const line of have) {
        if ([...wanted.values()].includes(line)) continue;
        const [prefix, nextHop, ...alias] = line.split(' ');
        steps.push(
          `Remove-NetRoute -DestinationPrefix ${psQuote(prefix as string)} -NextHop ${psQuote(nextHop as string)} -InterfaceAlias ${psQuote(alias.join(' '))} -Confirm:$false`,
        );
      }
      for (const line of wanted.values()) {
        if (have.includes(line)) continue;
        const [prefix, nextHop, ...alias] = line.split(' ');
        steps.push(
          `New-NetRoute -DestinationPrefix ${psQuote(prefix as string)} -NextHop ${psQuote(nextHop as string)} -InterfaceAlias ${psQuote(alias.join(' '))} | Out-Null`,
        );
      }
      steps.push(writeRecord({ ...record(facts), routes: [...wanted.keys()].sort() }));
      return setByCommand(exec, `$ErrorActionPreference = 'Stop'\n${steps.join('\n')}`, `overlay routes (${steps.length - 2} changes)`, {
        signal,
      });
    },
  };
}

function portProxies(input: OverlayInput): Resource {
  const wanted = new Map(input.ports.map((p) => [`0.0.0.0:${p.port}`, `0.0.0.0:${p.port} ${p.toAddress}:${p.toPort}`]));
  const read = (facts: Facts) => {
    const mine = new Set([...record(facts).ports, ...wanted.keys()]);
    return parsePortProxies(facts.get('overlay.portproxy'))
      .map((p) => `${p.listenAddress}:${p.listenPort} ${p.connectAddress}:${p.connectPort}`)
      .filter((line) => mine.has(line.split(' ')[0] as string));
  };
  return {
    name: 'overlay/portproxy',
    facts: [{ id: 'overlay.portproxy', ps: '@(netsh interface portproxy show v4tov4)' }, RECORD_FACT],
    test: (facts) => compare({ PortProxies: [read(facts).sort(), [...wanted.values()].sort()] }),
    async set({ exec, facts, signal }) {
      const have = read(facts);
      const steps = [writeRecord({ ...record(facts), ports: union(record(facts).ports, [...wanted.keys()]) })];
      const netsh = (args: string) => `netsh interface portproxy ${args}\nif ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }`;
      for (const line of have) {
        if ([...wanted.values()].includes(line)) continue;
        const [address, port] = (line.split(' ')[0] as string).split(':');
        steps.push(netsh(`delete v4tov4 listenport=${port} listenaddress=${address}`));
      }
      for (const line of wanted.values()) {
        if (have.includes(line)) continue;
        const [listen, connect] = line.split(' ') as [string, string];
        const [address, port] = listen.split(':');
        const [toAddress, toPort] = connect.split(':');
        steps.push(netsh(`add v4tov4 listenport=${port} listenaddress=${address} connectport=${toPort} connectaddress=${toAddress}`));
      }
      steps.push(writeRecord({ ...record(facts), ports: [...wanted.keys()].sort() }));
      return setByCommand(exec, steps.join('\n'), `port proxies (${steps.length - 2} changes)`, { signal });
    },
  };
}

export function windowsOverlay(input: OverlayInput): Phase {
  return { name: 'overlay', resources: [ipRouting(), network(input), gateway(input), routes(input), portProxies(input)] };
}

/**
 * On a node without a subnet (never had one, or its label was removed): no `gc-overlay` network, and none of
 * the routes and proxies the record lists. Read with prereqs' facts: no extra command for unlabelled nodes.
 */
export function windowsOverlayAbsent(): Resource {
  return {
    name: 'overlay/absent',
    facts: [{ id: 'overlay.absent.network', ps: `${hnsNetworkNames(OVERLAY_NETWORK)}.Count -gt 0` }, RECORD_FACT],
    test: (facts) =>
      compare({ Network: [facts.get('overlay.absent.network') ?? false, false], Record: [facts.get('overlay.record') != null, false] }),
    async set({ exec, facts, signal }) {
      // An entry the record lists but the host no longer has is fine (the record may outlive it); one that is
      // there and cannot be removed fails the phase, and the record stays so the next pass tries again.
      const { routes, ports } = record(facts);
      const failed = (what: string, output = '$o') => `if ($LASTEXITCODE -ne 0) { throw "${what} failed ($LASTEXITCODE): ${output}" }`;
      const steps = [
        ...routes.map(
          (p) =>
            `if (Get-NetRoute -DestinationPrefix ${psQuote(p)} -ErrorAction SilentlyContinue) { Remove-NetRoute -DestinationPrefix ${psQuote(p)} -Confirm:$false -ErrorAction Stop }`,
        ),
        ...(ports.length > 0 ? ['$pp = @(netsh interface portproxy show v4tov4)', failed('netsh interface portproxy show', '$pp')] : []),
        ...ports.map((l) => {
          const [address = '', port = ''] = l.split(':');
          const listed = psQuote(`^\\s*${address.replace(/\./g, '\\.')}\\s+${port}\\s`);
          return `if ($pp -match ${listed}) { $o = netsh interface portproxy delete v4tov4 listenport=${port} listenaddress=${address}; ${failed(`portproxy delete ${l}`)} }`;
        }),
        ...(facts.get('overlay.absent.network')
          ? [`$o = docker network rm ${OVERLAY_NETWORK}`, failed(`docker network rm ${OVERLAY_NETWORK}`)]
          : []),
        `if (Test-Path -Path ${psQuote(OVERLAY_RECORD)}) { Remove-Item -Force -Path ${psQuote(OVERLAY_RECORD)} -ErrorAction Stop }`,
        // powershell.exe exits with the last statement's $? (about_PowerShell_exe): a silenced Get-NetRoute
        // of a route already gone would leave it false. Every failure above has thrown by now.
        'exit 0',
      ];
      return setByCommand(exec, steps.join('\n'), 'remove the overlay', { signal });
    },
  };
}
