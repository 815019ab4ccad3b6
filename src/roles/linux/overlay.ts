// Per-host-subnet overlay on Linux: a bridge holding the gateway, and kernel routes to the other nodes'
// subnets. Routes are tagged with their own protocol number, so only groundcrew's routes are ever touched.

import { bashQuote } from '../../dataplane/quote.js';
import type { OverlayInput } from '../input.js';
import { type Phase, setByCommand } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { fact, linkFact } from './facts.js';

export const OVERLAY_BRIDGE = 'gc-overlay';
/** `proto 157` marks the routes groundcrew owns (unassigned in /etc/iproute2/rt_protos). */
export const OVERLAY_PROTO = 157;

interface IpAddr {
  ifname: string;
  flags?: string[];
  addr_info?: { family: string; local: string; prefixlen: number }[];
}

interface IpRoute {
  dst: string;
  gateway?: string;
  dev?: string;
}

function parseJson<T>(text: string): T[] {
  try {
    const value = JSON.parse(text || '[]');
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

function bridge(input: OverlayInput): Resource {
  const gateway = `${input.gateway}/${input.prefixLength}`;
  const read = (facts: ReadonlyMap<string, unknown>) => {
    const f = fact(facts, 'overlay.bridge');
    const link = f.status === 0 ? parseJson<IpAddr>(f.stdout)[0] : undefined;
    const addresses = (link?.addr_info ?? []).filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`);
    return { present: link !== undefined, up: link?.flags?.includes('UP') ?? false, addresses };
  };
  return {
    name: 'overlay/bridge',
    facts: [{ id: 'overlay.bridge', sh: `ip -j addr show dev ${OVERLAY_BRIDGE}` }],
    test: (facts) => {
      const b = read(facts);
      return compare({ Present: [b.present, true], Up: [b.up, true], Addresses: [b.addresses, [gateway]] });
    },
    async set({ exec, facts, signal }) {
      const b = read(facts);
      const steps = [
        ...(b.present ? [] : [`ip link add ${OVERLAY_BRIDGE} type bridge`]),
        ...b.addresses.filter((a) => a !== gateway).map((a) => `ip addr del ${bashQuote(a)} dev ${OVERLAY_BRIDGE}`),
        ...(b.addresses.includes(gateway) ? [] : [`ip addr add ${bashQuote(gateway)} dev ${OVERLAY_BRIDGE}`]),
        ...(b.up ? [] : [`ip link set ${OVERLAY_BRIDGE} up`]),
      ];
      return setByCommand(exec, `set -e\n${steps.join('\n')}`, `overlay bridge ${gateway}`, { signal });
    },
  };
}

/** A route as one comparable word: `10.42.2.0/24 via 192.0.2.12` or `169.254.169.250/32 dev gc-overlay`. */
function routeText(r: IpRoute): string {
  const dst = r.dst.includes('/') ? r.dst : `${r.dst}/32`;
  return r.gateway ? `${dst} via ${r.gateway}` : `${dst} dev ${r.dev}`;
}

export function wantedRoutes(input: OverlayInput): Map<string, string> {
  return new Map(input.routes.map((r) => [r.prefix, r.kind === 'peer' ? `${r.prefix} via ${r.via}` : `${r.prefix} dev ${OVERLAY_BRIDGE}`]));
}

function routes(input: OverlayInput): Resource {
  const wanted = wantedRoutes(input);
  const actual = (facts: ReadonlyMap<string, unknown>) =>
    new Map(parseJson<IpRoute>(fact(facts, 'overlay.routes').stdout).map((r) => [routeText(r).split(' ')[0] as string, routeText(r)]));
  return {
    name: 'overlay/routes',
    facts: [{ id: 'overlay.routes', sh: `ip -j -4 route show proto ${OVERLAY_PROTO}` }],
    test: (facts) => compare({ Routes: [[...actual(facts).values()].sort(), [...wanted.values()].sort()] }),
    async set({ exec, facts, signal }) {
      const have = actual(facts);
      const steps: string[] = [];
      for (const prefix of have.keys()) if (!wanted.has(prefix)) steps.push(`ip route del ${bashQuote(prefix)} proto ${OVERLAY_PROTO}`);
      for (const r of input.routes) {
        if (have.get(r.prefix) === wanted.get(r.prefix)) continue;
        const target = r.kind === 'peer' ? `via ${bashQuote(r.via)}` : `dev ${OVERLAY_BRIDGE} src ${bashQuote(input.gateway)}`;
        steps.push(`ip route replace ${bashQuote(r.prefix)} ${target} proto ${OVERLAY_PROTO}`);
      }
      return setByCommand(exec, `set -e\n${steps.join('\n')}`, `overlay routes (${steps.length} changes)`, { signal });
    },
  };
}

/** IP forwarding is the prereqs phase's (net.ipv4.ip_forward = 1 for every Linux node). */
export function linuxOverlay(input: OverlayInput): Phase {
  return { name: 'overlay', resources: [bridge(input), routes(input)] };
}

/**
 * On a node without a subnet (never had one, or its label was removed): no bridge and no routes tagged as
 * groundcrew's. Read with prereqs' facts, so an unlabelled node pays no extra command for it.
 */
export function linuxOverlayAbsent(): Resource {
  const read = (facts: ReadonlyMap<string, unknown>) => ({
    bridge: fact(facts, 'overlay.absent.bridge').status === 0,
    routes: parseJson<IpRoute>(fact(facts, 'overlay.absent.routes').stdout).map(routeText),
  });
  return {
    name: 'overlay/absent',
    facts: [
      // Whether the bridge exists, from sysfs by builtins; the routes need netlink (their protocol): `ip`.
      linkFact('overlay.absent.bridge', OVERLAY_BRIDGE, bashQuote),
      { id: 'overlay.absent.routes', sh: `ip -j -4 route show proto ${OVERLAY_PROTO}` },
    ],
    test: (facts) => {
      const { bridge, routes } = read(facts);
      return compare({ Bridge: [bridge, false], Routes: [routes, []] });
    },
    async set({ exec, facts, signal }) {
      const { bridge } = read(facts);
      const steps = [`ip route flush proto ${OVERLAY_PROTO}`, ...(bridge ? [`ip link del ${OVERLAY_BRIDGE}`] : [])];
      return setByCommand(exec, `set -e\n${steps.join('\n')}`, 'remove the overlay', { signal });
    },
  };
}
