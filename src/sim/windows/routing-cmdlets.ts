// IP routing in the simulator: routes, addresses, and netsh portproxy.

import { type CmdletContext, type CmdletSpec, type NativeSpec, obj } from '../shells/powershell/commands.js';
import { PsError } from '../shells/powershell/errors.js';
import { toText } from '../shells/powershell/values.js';
import type { WindowsHost } from './windows-host.js';
import type { PortProxy } from './windows-state.js';

type Spec = CmdletSpec<WindowsHost>;

const IPV4_PREFIX = /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/;
const IPV4 = /^(\d{1,3}\.){3}\d{1,3}$/;

/** What a CIM cmdlet says when its query matched nothing. */
function noMatch(cls: string, cmdlet: string, where: string): PsError {
  return new PsError(
    `No matching ${cls} objects found by CIM query for instances of the ROOT/StandardCimv2/${cls} class on the  CIM server: SELECT * FROM ${cls}  WHERE (${where}). Verify query parameters and retry.`,
    `CmdletizationQuery_NotFound,${cmdlet}`,
    'ObjectNotFound',
  );
}

function needInterface(host: WindowsHost, alias: string, cmdlet: string, ctx: CmdletContext): boolean {
  if (host.interfaceExists(alias)) return true;
  ctx.error(noMatch('MSFT_NetIPInterface', cmdlet, `(InterfaceAlias LIKE '${alias}')`));
  return false;
}

const getNetRoute: Spec = {
  name: 'Get-NetRoute',
  params: { AddressFamily: { type: 'string[]', values: ['IPv4', 'IPv6'] }, DestinationPrefix: { type: 'string[]' } },
  run(host, args, _input, ctx) {
    // The host has IPv4 addresses and routes only.
    if (args.AddressFamily !== undefined && !(args.AddressFamily as string[]).includes('IPv4')) return [];
    const wanted = args.DestinationPrefix as string[] | undefined;
    const found = host.state.routes.filter((r) => !wanted || wanted.includes(r.destinationPrefix));
    if (wanted && found.length === 0) ctx.error(noMatch('MSFT_NetRoute', 'Get-NetRoute', `(DestinationPrefix LIKE '${wanted[0]}')`));
    return found.map((r) =>
      obj({ DestinationPrefix: r.destinationPrefix, NextHop: r.nextHop, InterfaceAlias: r.interfaceAlias, RouteMetric: 256 }),
    );
  },
};

const newNetRoute: Spec = {
  name: 'New-NetRoute',
  params: {
    DestinationPrefix: { type: 'string', mandatory: true },
    InterfaceAlias: { type: 'string', mandatory: true },
    NextHop: { type: 'string' },
    RouteMetric: { type: 'int' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const destinationPrefix = toText(args.DestinationPrefix);
    const interfaceAlias = toText(args.InterfaceAlias);
    const nextHop = args.NextHop === undefined ? '0.0.0.0' : toText(args.NextHop);
    if (!IPV4_PREFIX.test(destinationPrefix) || !IPV4.test(nextHop)) {
      ctx.error(new PsError('The parameter is incorrect.', 'Windows System Error 87,New-NetRoute', 'InvalidArgument'));
      return [];
    }
    if (!needInterface(host, interfaceAlias, 'New-NetRoute', ctx)) return [];
    const same = (r: (typeof host.state.routes)[number]) =>
      r.destinationPrefix === destinationPrefix && r.nextHop === nextHop && r.interfaceAlias.toLowerCase() === interfaceAlias.toLowerCase();
    if (host.state.routes.some(same)) {
      ctx.error(new PsError('Instance MSFT_NetRoute already exists', 'Windows System Error 5010,New-NetRoute', 'ResourceExists'));
      return [];
    }
    const route = { destinationPrefix, nextHop, interfaceAlias };
    host.state.routes.push(route);
    host.record(`new-netroute ${destinationPrefix} ${nextHop} ${interfaceAlias}`);
    return [obj({ DestinationPrefix: destinationPrefix, NextHop: nextHop, InterfaceAlias: interfaceAlias })];
  },
};

const removeNetRoute: Spec = {
  name: 'Remove-NetRoute',
  params: {
    DestinationPrefix: { type: 'string[]' },
    NextHop: { type: 'string[]' },
    InterfaceAlias: { type: 'string[]' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const pick = (name: string) => (args[name] as string[] | undefined)?.map((v) => v.toLowerCase());
    const [prefixes, hops, aliases] = [pick('DestinationPrefix'), pick('NextHop'), pick('InterfaceAlias')];
    const matches = (r: (typeof host.state.routes)[number]) =>
      (!prefixes || prefixes.includes(r.destinationPrefix)) &&
      (!hops || hops.includes(r.nextHop)) &&
      (!aliases || aliases.includes(r.interfaceAlias.toLowerCase()));
    const gone = host.state.routes.filter(matches);
    if (gone.length === 0) {
      ctx.error(noMatch('MSFT_NetRoute', 'Remove-NetRoute', `(DestinationPrefix LIKE '${prefixes?.[0] ?? '*'}')`));
      return [];
    }
    host.state.routes = host.state.routes.filter((r) => !matches(r));
    for (const r of gone) host.record(`remove-netroute ${r.destinationPrefix} ${r.nextHop} ${r.interfaceAlias}`);
    return [];
  },
};

const getNetIPAddress: Spec = {
  name: 'Get-NetIPAddress',
  params: { InterfaceAlias: { type: 'string[]' }, AddressFamily: { type: 'string[]', values: ['IPv4', 'IPv6'] } },
  run(host, args, _input, ctx) {
    // The host has IPv4 addresses and routes only.
    if (args.AddressFamily !== undefined && !(args.AddressFamily as string[]).includes('IPv4')) return [];
    const aliases = (args.InterfaceAlias as string[] | undefined)?.map((a) => a.toLowerCase());
    const found = [...host.adapterAddresses(), ...host.state.ipAddresses].filter(
      (a) => !aliases || aliases.includes(a.interfaceAlias.toLowerCase()),
    );
    if (aliases && found.length === 0) ctx.error(noMatch('MSFT_NetIPAddress', 'Get-NetIPAddress', `(InterfaceAlias LIKE '${aliases[0]}')`));
    // SuffixOrigin: Dhcp for a leased address, Manual for a static one or one New-NetIPAddress added.
    return found.map((a) =>
      obj({
        IPAddress: a.ipAddress,
        PrefixLength: a.prefixLength,
        InterfaceAlias: a.interfaceAlias,
        SuffixOrigin: 'origin' in a ? a.origin : 'Manual',
      }),
    );
  },
};

function onLinkPrefix(address: string, prefixLength: number): string {
  const value = address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
  const network = value - (value % 2 ** (32 - prefixLength));
  return `${[24, 16, 8, 0].map((s) => Math.floor(network / 2 ** s) % 256).join('.')}/${prefixLength}`;
}

const newNetIPAddress: Spec = {
  name: 'New-NetIPAddress',
  params: {
    InterfaceAlias: { type: 'string', mandatory: true },
    IPAddress: { type: 'string', mandatory: true },
    PrefixLength: { type: 'int' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const interfaceAlias = toText(args.InterfaceAlias);
    const ipAddress = toText(args.IPAddress);
    const prefixLength = (args.PrefixLength as number | undefined) ?? 32;
    if (!IPV4.test(ipAddress) || prefixLength < 0 || prefixLength > 32) {
      ctx.error(new PsError('The parameter is incorrect.', 'Windows System Error 87,New-NetIPAddress', 'InvalidArgument'));
      return [];
    }
    if (!needInterface(host, interfaceAlias, 'New-NetIPAddress', ctx)) return [];
    if (host.state.ipAddresses.some((a) => a.ipAddress === ipAddress)) {
      ctx.error(new PsError('Instance MSFT_NetIPAddress already exists', 'Windows System Error 5010,New-NetIPAddress', 'ResourceExists'));
      return [];
    }
    host.state.ipAddresses.push({ interfaceAlias, ipAddress, prefixLength });
    // Windows adds the on-link route of the address's prefix with it.
    host.state.routes.push({ destinationPrefix: onLinkPrefix(ipAddress, prefixLength), nextHop: '0.0.0.0', interfaceAlias });
    host.record(`new-netipaddress ${ipAddress}/${prefixLength} ${interfaceAlias}`);
    return [obj({ IPAddress: ipAddress, PrefixLength: prefixLength, InterfaceAlias: interfaceAlias })];
  },
};

function showProxies(proxies: PortProxy[]): string {
  if (proxies.length === 0) return '\r\n';
  const pad = (v: string | number, n: number) => String(v).padEnd(n);
  const rows = proxies.map((p) => `${pad(p.listenAddress, 15)} ${pad(p.listenPort, 10)}  ${pad(p.connectAddress, 15)} ${p.connectPort}`);
  return [
    '',
    'Listen on ipv4:             Connect to ipv4:',
    '',
    'Address         Port        Address         Port',
    '--------------- ----------  --------------- ----------',
    ...rows,
    '',
    '',
  ].join('\r\n');
}

/** netsh: `interface portproxy add|delete|show v4tov4` only. */
const netsh: NativeSpec<WindowsHost> = {
  names: ['netsh'],
  run(host, argv) {
    const [context, sub, verb, kind, ...rest] = argv.map((a) => a.toLowerCase());
    if (context !== 'interface' || sub !== 'portproxy' || kind !== 'v4tov4')
      return { stdout: `groundcrew sim: netsh ${argv.join(' ')} is outside the simulated subset\r\n`, exitCode: 1 };
    const opts = Object.fromEntries(rest.map((a) => a.split('=') as [string, string]));
    const listenAddress = opts.listenaddress ?? '*';
    const listenPort = Number(opts.listenport);
    if (verb === 'show') return { stdout: showProxies(host.state.portProxies), exitCode: 0 };
    if (!(listenPort >= 1 && listenPort <= 65535)) return { stdout: 'The parameter is incorrect.\r\n\r\n', exitCode: 1 };
    const same = (p: PortProxy) => p.listenAddress === listenAddress && p.listenPort === listenPort;
    if (verb === 'delete') {
      if (!host.state.portProxies.some(same)) return { stdout: 'The system cannot find the file specified.\r\n\r\n', exitCode: 1 };
      host.state.portProxies = host.state.portProxies.filter((p) => !same(p));
      host.record(`portproxy-delete ${listenAddress}:${listenPort}`);
      return { stdout: '\r\n', exitCode: 0 };
    }
    if (verb === 'add') {
      const connectPort = Number(opts.connectport ?? listenPort);
      const connectAddress = opts.connectaddress;
      if (!connectAddress || !(connectPort >= 1 && connectPort <= 65535))
        return { stdout: 'The parameter is incorrect.\r\n\r\n', exitCode: 1 };
      // `add` on a listen address and port already present replaces its target.
      host.state.portProxies = [
        ...host.state.portProxies.filter((p) => !same(p)),
        { listenAddress, listenPort, connectAddress, connectPort },
      ];
      host.record(`portproxy-add ${listenAddress}:${listenPort} ${connectAddress}:${connectPort}`);
      return { stdout: '\r\n', exitCode: 0 };
    }
    return { stdout: `The following command was not found: interface portproxy ${verb}.\r\n`, exitCode: 1 };
  },
};

/** Get-NetIPConfiguration -InterfaceAlias: the adapter's IPv4 default gateway (IPv4DefaultGateway.NextHop), if any. */
const getNetIPConfiguration: Spec = {
  name: 'Get-NetIPConfiguration',
  params: { InterfaceAlias: { type: 'string', position: 0, aliases: ['ifAlias'] } },
  run(host, args, _input, ctx) {
    const alias = args.InterfaceAlias === undefined ? undefined : String(args.InterfaceAlias).toLowerCase();
    const adapters = host.adapters().filter((a) => alias === undefined || a.name.toLowerCase() === alias);
    if (alias !== undefined && adapters.length === 0) {
      ctx.error(noMatch('MSFT_NetAdapter', 'Get-NetIPConfiguration', `(InterfaceAlias LIKE '${alias}')`));
      return [];
    }
    return adapters.map((a) => {
      const own = host.adapterAddresses().find((x) => x.interfaceAlias.toLowerCase() === a.name.toLowerCase());
      return obj({
        InterfaceAlias: a.name,
        InterfaceIndex: a.ifIndex,
        IPv4Address: own ? obj({ IPAddress: own.ipAddress, PrefixLength: own.prefixLength }) : null,
        IPv4DefaultGateway: own?.gateway ? obj({ NextHop: own.gateway }) : null,
      });
    });
  },
};

export const ROUTING_CMDLETS: Spec[] = [getNetRoute, newNetRoute, removeNetRoute, getNetIPAddress, newNetIPAddress, getNetIPConfiguration];
export const ROUTING_NATIVES: NativeSpec<WindowsHost>[] = [netsh];
