// `ip` on a simulated Linux host: links (the agent's and bridges made with `ip link add`), their addresses,
// and the main routing table, as iproute2 prints and refuses them. Lost at reboot, as on a real host.

import { type CommandResult, fail as failWith, ok } from '../command-result.js';
import type { LinuxHost } from './linux-host.js';

export interface SimRoute {
  dst: string;
  gateway?: string;
  dev: string;
  prefsrc?: string;
  protocol?: string;
}

const fail = (stderr: string, code = 2): CommandResult => failWith(stderr, code);

/** The host's own interfaces: loopback and eth0, whatever containers made, and user-made bridges. */
function linkNames(host: LinuxHost): string[] {
  return ['lo', 'eth0', ...host.interfaces(), ...Object.keys(host.state.links ?? {})];
}

/** `10.42.1.0/24` stays; a host route prints as its bare address, as iproute2 does. */
const shown = (dst: string) => dst.replace(/\/32$/, '');
const normal = (dst: string) => (dst.includes('/') ? dst : `${dst}/32`);

function option(words: string[], name: string): string | undefined {
  const at = words.indexOf(name);
  return at >= 0 ? words[at + 1] : undefined;
}

function link(host: LinuxHost, words: string[], json: boolean): CommandResult {
  const links = host.state.links;
  const [verb = 'show', ...rest] = words;
  const name = rest.find((w, i) => w !== 'dev' && rest[i - 1] !== 'type');
  if (verb === 'add') {
    if (!name || option(rest, 'type') !== 'bridge') return fail('groundcrew sim: ip link add NAME type bridge only\n');
    if (linkNames(host).includes(name)) return fail('RTNETLINK answers: File exists\n');
    links[name] = { up: false, addrs: [] };
    host.record(`ip link add ${name}`);
    return ok();
  }
  if (!name && verb !== 'show') return fail(`Command line is not complete. Try option "help"\n`, 255);
  if (name && !linkNames(host).includes(name)) return fail(`Cannot find device "${name}"\n`, 1);
  const own = name ? links[name] : undefined;
  if (verb === 'set') {
    if (!own) return fail('groundcrew sim: ip link set applies to bridges made with ip link add\n');
    own.up = rest.includes('up') ? true : rest.includes('down') ? false : own.up;
    host.record(`ip link set ${name} ${own.up ? 'up' : 'down'}`);
    return ok();
  }
  if (verb === 'del' || verb === 'delete') {
    if (!own) return fail('RTNETLINK answers: Operation not supported\n');
    delete links[name as string];
    host.state.routes = host.state.routes.filter((r) => r.dev !== name);
    host.record(`ip link del ${name}`);
    return ok();
  }
  if (verb !== 'show') return fail(`groundcrew sim: ip link ${verb} is outside the simulated subset\n`);
  const list = name ? [name] : linkNames(host);
  if (json) return ok(`${JSON.stringify(list.map((ifname, i) => linkJson(host, ifname, i)))}\n`);
  const line = (n: string, i: number) =>
    `${i + 1}: ${n}: <${isUp(host, n) ? 'BROADCAST,MULTICAST,UP,LOWER_UP' : 'BROADCAST,MULTICAST'}> mtu 1500 state ${isUp(host, n) ? 'UP' : 'DOWN'}`;
  return ok(list.map((n, i) => `${line(n, i)}\n`).join(''));
}

/** /sys/class/net/NAME/flags: the kernel's net_device flags in hex (IFF_UP 0x1, BROADCAST 0x2, MULTICAST 0x1000). */
export function sysfsFlags(host: LinuxHost, name: string): string | undefined {
  if (!linkNames(host).includes(name)) return undefined;
  if (name === 'lo') return '0x9\n';
  return isUp(host, name) ? '0x1003\n' : '0x1002\n';
}

function isUp(host: LinuxHost, name: string): boolean {
  return host.state.links[name]?.up ?? true;
}

function linkJson(host: LinuxHost, ifname: string, i: number) {
  const up = isUp(host, ifname);
  const flags = ifname === 'lo' ? ['LOOPBACK', 'UP', 'LOWER_UP'] : ['BROADCAST', 'MULTICAST', ...(up ? ['UP', 'LOWER_UP'] : [])];
  return { ifindex: i + 1, ifname, flags, operstate: ifname === 'lo' ? 'UNKNOWN' : up ? 'UP' : 'DOWN' };
}

function addr(host: LinuxHost, words: string[], json: boolean): CommandResult {
  const [verb = 'show', ...rest] = words;
  const dev = option(rest, 'dev');
  if (verb === 'show') {
    if (dev && !linkNames(host).includes(dev)) return fail(`Device "${dev}" does not exist.\n`, 1);
    const list = (dev ? [dev] : linkNames(host)).map((n) => ({
      ...linkJson(host, n, linkNames(host).indexOf(n)),
      addr_info: (host.state.links[n]?.addrs ?? []).map((a) => ({
        family: 'inet',
        local: a.split('/')[0],
        prefixlen: Number(a.split('/')[1]),
      })),
    }));
    if (!json) return fail('groundcrew sim: ip addr show answers with -j only\n');
    return ok(`${JSON.stringify(list)}\n`);
  }
  const address = rest.find((w) => w.includes('/'));
  const own = dev ? host.state.links[dev] : undefined;
  if (!address || !dev) return fail('Command line is not complete. Try option "help"\n', 255);
  if (!linkNames(host).includes(dev)) return fail(`Cannot find device "${dev}"\n`, 1);
  if (!own) return fail('groundcrew sim: addresses are modelled on bridges made with ip link add\n');
  if (verb === 'add') {
    if (own.addrs.includes(address)) return fail('RTNETLINK answers: File exists\n');
    own.addrs.push(address);
  } else if (verb === 'del' || verb === 'delete') {
    if (!own.addrs.includes(address)) return fail('RTNETLINK answers: Cannot assign requested address\n');
    own.addrs = own.addrs.filter((a) => a !== address);
  } else return fail(`groundcrew sim: ip addr ${verb} is outside the simulated subset\n`);
  host.record(`ip addr ${verb} ${address} dev ${dev}`);
  return ok();
}

function route(host: LinuxHost, words: string[], json: boolean): CommandResult {
  const routes = host.state.routes;
  const [verb = 'show', ...rest] = words;
  const proto = option(rest, 'proto');
  if (verb === 'show' || verb === 'list') {
    const list = routes.filter((r) => !proto || r.protocol === proto);
    if (!json) return ok(list.map((r) => `${shown(r.dst)}${r.gateway ? ` via ${r.gateway}` : ''} dev ${r.dev}\n`).join(''));
    // As iproute2 6.1 prints it (test/fixtures/linux/ip-j-route-proto-157.json): no `protocol` when the listing is
    // filtered by it, `scope: link` on a route with no gateway, then `flags`.
    return ok(`${JSON.stringify(list.map((r) => routeJson(r, proto !== undefined)))}\n`);
  }
  if (verb === 'flush') {
    if (!proto) return fail('"ip route flush" requires arguments.\n', 255);
    const gone = routes.filter((r) => r.protocol === proto);
    host.state.routes = routes.filter((r) => r.protocol !== proto);
    if (gone.length > 0) host.record(`ip route flush proto ${proto}`);
    return ok();
  }
  const dst = rest[0];
  if (!dst || !/^\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?$/.test(dst))
    return fail(`Error: any valid prefix is expected rather than "${dst}".\n`, 1);
  if (verb === 'del' || verb === 'delete') {
    const at = routes.findIndex((r) => r.dst === normal(dst) && (!proto || r.protocol === proto));
    if (at < 0) return fail('RTNETLINK answers: No such process\n');
    routes.splice(at, 1);
    host.record(`ip route del ${normal(dst)}`);
    return ok();
  }
  if (verb !== 'replace' && verb !== 'add') return fail(`groundcrew sim: ip route ${verb} is outside the simulated subset\n`);
  const gateway = option(rest, 'via');
  const dev = option(rest, 'dev') ?? (gateway ? 'eth0' : undefined);
  if (!dev) return fail('Error: either "to" is duplicate, or "dev" is a garbage.\n');
  if (!linkNames(host).includes(dev)) return fail(`Cannot find device "${dev}"\n`, 1);
  const next: SimRoute = {
    dst: normal(dst),
    dev,
    ...(gateway ? { gateway } : {}),
    ...(option(rest, 'src') ? { prefsrc: option(rest, 'src') } : {}),
    ...(proto ? { protocol: proto } : {}),
  };
  const at = routes.findIndex((r) => r.dst === next.dst);
  if (at >= 0 && verb === 'add') return fail('RTNETLINK answers: File exists\n');
  if (at >= 0) routes.splice(at, 1, next);
  else routes.push(next);
  host.record(`ip route ${verb} ${next.dst}`);
  return ok();
}

function routeJson({ protocol, ...r }: SimRoute, filteredByProto: boolean) {
  return {
    dst: shown(r.dst),
    ...(r.gateway ? { gateway: r.gateway } : {}),
    dev: r.dev,
    ...(protocol && !filteredByProto ? { protocol } : {}),
    ...(r.gateway ? {} : { scope: 'link' }),
    ...(r.prefsrc ? { prefsrc: r.prefsrc } : {}),
    flags: [],
  };
}

/** `ip [-j] [-4] [-o] [-br] OBJECT ...` for link, addr and route (-o prints one line per link anyway). */
export function ipCommand(host: LinuxHost, args: string[]): CommandResult {
  const json = args.includes('-j');
  const words = args.filter((a) => !a.startsWith('-'));
  const [object, ...rest] = words;
  if (args.includes('-br')) {
    const name = object === 'link' ? rest.find((w) => w !== 'show' && w !== 'dev') : undefined;
    if (name && !linkNames(host).includes(name)) return fail(`Device "${name}" does not exist.\n`, 1);
    const list = name ? [name] : linkNames(host);
    return ok(list.map((n) => `${n.padEnd(16)} ${n === 'lo' ? 'UNKNOWN' : isUp(host, n) ? 'UP' : 'DOWN'}\n`).join(''));
  }
  if (object === 'link') return link(host, rest, json);
  if (object === 'addr' || object === 'address' || object === 'a') return addr(host, rest, json);
  if (object === 'route' || object === 'r') return route(host, rest, json);
  return fail(`groundcrew sim: ip ${args.join(' ')} is outside the simulated subset\n`);
}
