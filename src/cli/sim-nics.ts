// The network adapters a rehearsal's simulated Windows host is built with, read from the inventory: the management
// adapter with the node's own address, every adapter the inventory names for the node (WINDOWS_PHYSICAL_INTERFACE,
// after c-a-d's per-instance and per-role overrides; nodes/<node>.yaml overlay_interface) and the stock second adapter
// Ethernet1, each addressed as a data network is: from DHCP, in the blocks of CONTROL_DATA_NET_LIST when the
// inventory gives them. Built once, with the node's first revision: a host does not grow adapters.

import { formatIPv4, parseCidr, parseIPv4 } from '../inventory/cidr.js';
import { configText } from '../inventory/configuration.js';
import type { NodeSpec } from '../inventory/desired-state.js';
import type { NicState } from '../sim/windows/windows-state.js';

/** The adapter a node's own address is on when the inventory does not name it (c-a-d never does for Windows). */
const MANAGEMENT = 'Ethernet0';

/** A data network for the adapter: the inventory's control/data block, else one of 172.16.N.0/24 per adapter. */
function dataNetwork(node: NodeSpec, index: number): { network: number; prefix: number; gateway?: number } {
  const listed = configText(node.configuration, 'CONTROL_DATA_NET_LIST')
    ?.split(/[\s,]+/)
    .filter(Boolean)
    .map(parseCidr)[index];
  if (listed !== undefined && typeof listed !== 'string' && listed.prefix <= 30) {
    const gateway = parseIPv4(configText(node.configuration, 'VROUTER_GATEWAY') ?? '');
    const inside = gateway !== undefined && gateway - (gateway % 2 ** (32 - listed.prefix)) === listed.network;
    return { network: listed.network, prefix: listed.prefix, ...(inside ? { gateway } : {}) };
  }
  return { network: parseIPv4(`172.16.${index}.0`) as number, prefix: 24 };
}

/** The node's host number in a data network: its own address's, within the block (never the network or the gateway). */
function hostIn(network: { network: number; prefix: number; gateway?: number }, own: string): number {
  const size = 2 ** (32 - network.prefix);
  const gateway = network.gateway ?? network.network + 1;
  let host = (parseIPv4(own) ?? 50) % size;
  if (host < 2 || host >= size - 1 || network.network + host === gateway) host = host === 2 ? 3 : 2;
  return network.network + host;
}

/** The second adapter of the stock two-NIC host the simulator has always stood for, kept whatever the inventory names. */
const STOCK_DATA = 'Ethernet1';

export function nicsFor(node: NodeSpec): NicState[] {
  const named = [configText(node.configuration, 'WINDOWS_PHYSICAL_INTERFACE'), node.overlayInterface].filter(
    (name): name is string => name !== undefined && name !== '',
  );
  // A static address, as c-a-d's `ip` is the address it reaches the node at; its /24's first host as the gateway.
  const own = parseIPv4(node.address);
  const gateway = own === undefined ? {} : { gateway: formatIPv4(own - (own % 256) + 1) };
  const nics: NicState[] = [{ name: MANAGEMENT, ipAddress: node.address, prefixLength: 24, ...gateway, origin: 'Manual' }];
  // The named adapters take the data networks first (the vRouter's the inventory's control/data block); a host keeps
  // the adapters it was built with when a later commit names another, as a real one does: that one is missing.
  for (const name of [...named, STOCK_DATA]) {
    if (nics.some((n) => n.name.toLowerCase() === name.toLowerCase())) continue;
    const network = dataNetwork(node, nics.length - 1);
    nics.push({
      name,
      ipAddress: formatIPv4(hostIn(network, node.address)),
      prefixLength: network.prefix,
      gateway: formatIPv4(network.gateway ?? network.network + 1),
      origin: 'Dhcp',
    });
  }
  const [management, ...data] = nics as [NicState, ...NicState[]];
  return [management, ...data.sort((a, b) => a.name.localeCompare(b.name))];
}
