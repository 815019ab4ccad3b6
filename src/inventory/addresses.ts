// instances.yaml's addresses: each node's ip is an IP, and no two nodes share one.

import { isIP } from 'node:net';
import type { NodeSpec } from './desired-state.js';
import type { Diagnostic } from './diagnostic.js';
import type { YamlSource } from './yaml-source.js';

/** Each address is an IP, and no two nodes share one (the later is reported, naming the first). */
export function checkAddresses(src: YamlSource, nodes: readonly NodeSpec[]): Diagnostic[] {
  const diags: Diagnostic[] = [];
  const first = new Map<string, string>();
  for (const { name, address: ip } of nodes) {
    const ipPath = ['instances', name, 'ip'];
    if (isIP(ip) === 0) {
      diags.push(src.diagnostic(ipPath, 'error', `instances.${name}.ip: "${ip}" is not an IP address`));
      continue;
    }
    const node = first.get(ip);
    if (node === undefined) {
      first.set(ip, name);
      continue;
    }
    const line = src.position(src.offsetOf(['instances', node, 'ip'])).line;
    diags.push(src.diagnostic(ipPath, 'error', `instances.${name}.ip: ${ip} is already the address of node "${node}" (line ${line})`));
  }
  return diags;
}
