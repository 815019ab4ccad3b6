// Per-host-subnet overlay (Rancher's Windows design): each labelled node's subnet, checked across the
// cluster, and the routes every node must hold to reach every other node's subnet. Pure.

import { blockEnd, type Cidr, contains, firstHost, formatIPv4, parseCidr, parseIPv4 } from './cidr.js';
import { configText } from './configuration.js';
import type { NodeSpec } from './desired-state.js';
import type { Diagnostic } from './diagnostic.js';
import type { NodeFileSettings } from './node-file.js';
import type { YamlSource } from './yaml-source.js';

export const SUBNET_LABEL = 'per_host_subnet';
/** The metadata and DNS service addresses each node reaches through its own gateway. */
export const SERVICE_ADDRESSES = ['169.254.169.250', '169.254.169.251'] as const;

export interface OverlayRoute {
  /** e.g. `10.42.2.0/24` or `169.254.169.250/32`. */
  prefix: string;
  /** The peer node's address, or this node's own gateway for the service addresses. */
  via: string;
  kind: 'peer' | 'service';
  /** The node whose subnet this is (peer routes). */
  node?: string;
}

export interface NodeOverlay {
  subnet: string;
  gateway: string;
  prefixLength: number;
  /** Peer routes sorted by prefix, then the two service routes: a stable order, so plans compare as text. */
  routes: OverlayRoute[];
  ports: { port: number; toAddress: string; toPort: number }[];
}

/** Configuration keys whose values are addresses the cluster uses: a pod subnet must not shadow them. */
const ADDRESS_KEYS = ['KEYSTONE_AUTH_HOST', 'CONTROL_NODES', 'CONTROLLER_NODES', 'CONTROL_DATA_NET_LIST'];

interface Labelled {
  node: NodeSpec;
  block: Cidr;
  file: NodeFileSettings;
  /** Position among the labelled nodes, in instances.yaml order. */
  order: number;
}

function subnetOf(node: NodeSpec): Cidr | undefined {
  const text = node.labels[SUBNET_LABEL];
  if (text === undefined) return undefined;
  const block = parseCidr(text);
  return typeof block === 'string' ? undefined : block;
}

/** Addresses the cluster uses, with where each comes from (for messages). */
function usedAddresses(nodes: readonly NodeSpec[], instances: YamlSource): Map<number, string> {
  const used = new Map<number, string>();
  for (const node of nodes) {
    const value = parseIPv4(node.address);
    const at = instances.position(instances.offsetOf(['instances', node.name, 'ip']));
    if (value !== undefined) used.set(value, `the address of node "${node.name}" (${instances.file}:${at.line}:${at.col})`);
  }
  for (const node of nodes)
    for (const key of ADDRESS_KEYS)
      for (const word of (configText(node.configuration, key) ?? '').split(/[\s,]+/)) {
        const value = parseIPv4(word);
        if (value !== undefined && !used.has(value)) used.set(value, `${key} (${word})`);
      }
  return used;
}

/** Addresses in use, sorted, for "does this block hold one?" in log time (10,000 nodes, 10,000 blocks). */
class AddressIndex {
  readonly #sorted: number[];
  constructor(readonly used: ReadonlyMap<number, string>) {
    this.#sorted = [...used.keys()].sort((a, b) => a - b);
  }
  /** The lowest used address inside `block`, if any. */
  firstIn(block: Cidr): number | undefined {
    let [lo, hi] = [0, this.#sorted.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#sorted[mid] as number) < block.network) lo = mid + 1;
      else hi = mid;
    }
    const found = this.#sorted[lo];
    return found !== undefined && contains(block, found) ? found : undefined;
  }
}

/**
 * Rejects what would break the overlay: a label that is not a network, subnets that overlap each other or the
 * service addresses, a subnet holding an address the cluster uses (its gateway above all), published ports
 * that point outside the node's own subnet or repeat. Of two overlapping subnets, the later node's is reported.
 */
export function checkOverlay(
  nodes: readonly NodeSpec[],
  nodeFiles: ReadonlyMap<string, NodeFileSettings>,
  instances: YamlSource,
  diags: Diagnostic[],
): void {
  const labelPath = ['labels', SUBNET_LABEL];
  // Only a node file can label a subnet or publish a port (the node's labels and ports are its file's).
  if (![...nodeFiles.values()].some((f) => f.labels[SUBNET_LABEL] !== undefined || f.publishedPorts.length > 0)) return;
  // Built only when some node file labels a subnet: a commit that changes no label need not index 10,000 addresses.
  let used: AddressIndex | undefined;
  const candidates: Labelled[] = [];
  for (const node of nodes) {
    const file = nodeFiles.get(node.name);
    const text = node.labels[SUBNET_LABEL];
    if (!file) continue;
    if (node.overlayInterface !== undefined && (text === undefined || node.os !== 'windows'))
      diags.push(
        file.diagnose(
          ['overlay_interface'],
          node.os === 'windows'
            ? `overlay_interface needs labels.${SUBNET_LABEL}: it names the adapter that subnet's network binds`
            : 'overlay_interface is for Windows nodes: a Linux node puts its subnet on a bridge of its own',
        ),
      );
    if (text === undefined) {
      if (node.publishedPorts.length > 0)
        diags.push(file.diagnose(['published_ports'], `published_ports needs labels.${SUBNET_LABEL}: the ports forward into that subnet`));
      continue;
    }
    const block = parseCidr(text);
    if (typeof block === 'string') {
      diags.push(file.diagnose(labelPath, `${SUBNET_LABEL}: ${block}`));
      continue;
    }
    if (block.prefix > 30) {
      diags.push(
        file.diagnose(labelPath, `${SUBNET_LABEL} ${block.text} is too small: a /30 or larger leaves room for a gateway and pods`),
      );
      continue;
    }
    used ??= new AddressIndex(usedAddresses(nodes, instances));
    const problem = shadowed(block, used);
    if (problem) {
      diags.push(file.diagnose(labelPath, `${SUBNET_LABEL} ${block.text} of node "${node.name}" ${problem}`));
      continue;
    }
    candidates.push({ node, block, file, order: candidates.length });
  }
  const clashes = overlapping(candidates);
  for (const c of candidates) {
    const other = clashes.get(c);
    if (!other) {
      checkPorts(c.node, c.block, c.file, diags);
      continue;
    }
    const at = other.file.diagnose(labelPath, '');
    diags.push(
      c.file.diagnose(
        labelPath,
        `${SUBNET_LABEL} ${c.block.text} of node "${c.node.name}" overlaps ${other.block.text} of node "${other.node.name}" (${at.file}:${at.line}:${at.col})`,
      ),
    );
  }
}

/** Each subnet that overlaps an earlier node's, with that node's: one sweep over the blocks in address order. */
function overlapping(candidates: Labelled[]): Map<Labelled, Labelled> {
  const sorted = [...candidates].sort((a, b) => a.block.network - b.block.network || a.order - b.order);
  const clashes = new Map<Labelled, Labelled>();
  let reach: Labelled | undefined;
  for (const c of sorted) {
    if (reach && c.block.network < blockEnd(reach.block)) {
      const [later, earlier] = c.order > reach.order ? [c, reach] : [reach, c];
      clashes.set(later, earlier);
      if (later === reach) reach = c;
      continue;
    }
    if (!reach || blockEnd(c.block) > blockEnd(reach.block)) reach = c;
  }
  return clashes;
}

function shadowed(block: Cidr, used: AddressIndex): string | undefined {
  const gateway = firstHost(block);
  if (used.used.has(gateway)) return `would put its gateway ${formatIPv4(gateway)} on ${used.used.get(gateway)}`;
  const inside = used.firstIn(block);
  if (inside !== undefined) return `contains ${used.used.get(inside)}: the node would be routed as a pod`;
  const service = SERVICE_ADDRESSES.find((a) => contains(block, parseIPv4(a) as number));
  if (service) return `contains the service address ${service}, which every node routes through its own gateway`;
  return undefined;
}

function checkPorts(node: NodeSpec, block: Cidr, file: NodeFileSettings, diags: Diagnostic[]): void {
  const seen = new Set<number>();
  for (const [i, p] of node.publishedPorts.entries()) {
    const path = ['published_ports', i];
    const target = parseTarget(p.to);
    if (!target) diags.push(file.diagnose([...path, 'to'], `"${p.to}" is not an address:port like 10.42.1.10:80`));
    else if (!contains(block, target.address) || target.address === firstHost(block))
      diags.push(
        file.diagnose(
          [...path, 'to'],
          `${p.to} is not a pod address of node "${node.name}": expected an address in ${block.text} other than its gateway ${formatIPv4(firstHost(block))}`,
        ),
      );
    if (seen.has(p.port)) diags.push(file.diagnose([...path, 'port'], `port ${p.port} is published twice on node "${node.name}"`));
    seen.add(p.port);
  }
}

function parseTarget(to: string): { address: number; port: number } | undefined {
  const match = /^([\d.]+):(\d{1,5})$/.exec(to);
  const address = match ? parseIPv4(match[1] as string) : undefined;
  const port = Number(match?.[2]);
  return address !== undefined && port >= 1 && port <= 65535 ? { address, port } : undefined;
}

/**
 * Every labelled node's overlay: its subnet and gateway, a route to each other labelled node's subnet via that
 * node's address, the service routes via its own gateway, and its published ports. Nodes without the label
 * get none (and are not routed to). Expects a checked inventory.
 */
export function planOverlay(nodes: readonly NodeSpec[]): Map<string, NodeOverlay> {
  const labelled = nodes.flatMap((node) => {
    const block = subnetOf(node);
    return block ? [{ node, block }] : [];
  });
  const plans = new Map<string, NodeOverlay>();
  for (const { node, block } of labelled) {
    const gateway = formatIPv4(firstHost(block));
    const peers = labelled
      .filter((other) => other.node.name !== node.name)
      .map((other): OverlayRoute => ({ prefix: other.block.text, via: other.node.address, kind: 'peer', node: other.node.name }))
      .sort((a, b) => a.prefix.localeCompare(b.prefix));
    const services = SERVICE_ADDRESSES.map((a): OverlayRoute => ({ prefix: `${a}/32`, via: gateway, kind: 'service' }));
    const ports = node.publishedPorts.map((p) => {
      const [address, port] = p.to.split(':');
      return { port: p.port, toAddress: address as string, toPort: Number(port) };
    });
    plans.set(node.name, { subnet: block.text, gateway, prefixLength: block.prefix, routes: [...peers, ...services], ports });
  }
  return plans;
}
