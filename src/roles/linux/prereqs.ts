// Linux prereqs: Docker and Compose (v2 plugin or v1) present (groundcrew does not install them), sysctls, directories.

import { bashQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import type { LinuxRoleInput } from '../input.js';
import { applied, type Phase } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { composePresent } from './compose-cli.js';
import { dirFact, fact, fileContent, fileFact } from './facts.js';
import { linuxOverlayAbsent } from './overlay.js';

const SYSCTL_FILE = '/etc/sysctl.d/60-contrail.conf';
const SYSCTLS: Record<string, string> = { 'net.ipv4.ip_forward': '1' };
const DIRS = ['/etc/contrail', '/etc/contrail/vrouter', '/var/log/contrail', '/var/lib/contrail'];

/** Present, or the phase cannot go on: groundcrew does not install Docker on Linux nodes. */
function tool(name: string, sh: string): Resource {
  const id = `tool.${name}`;
  return {
    name: `tool/${name}`,
    facts: [{ id, sh }],
    test: (facts) => compare({ Present: [fact(facts, id).status === 0, true] }),
    async set() {
      throw errors.GC_SET_FAILED(`${name} is not installed on the node: install it (groundcrew does not install Docker on Linux nodes)`);
    },
  };
}

function sysctls(): Resource {
  const content = `${Object.entries(SYSCTLS)
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n')}\n`;
  return {
    name: 'sysctls',
    facts: [
      fileFact('sysctl.file', SYSCTL_FILE, bashQuote),
      // What `sysctl -n` reads, read by a builtin: /proc/sys/net/ipv4/ip_forward for net.ipv4.ip_forward.
      ...Object.keys(SYSCTLS).map((k) => fileFact(`sysctl.${k}`, `/proc/sys/${k.replace(/\./g, '/')}`, bashQuote)),
    ],
    test: (facts) =>
      compare({
        [SYSCTL_FILE]: [fileContent(facts, 'sysctl.file'), content],
        ...Object.fromEntries(Object.entries(SYSCTLS).map(([k, v]) => [k, [fileContent(facts, `sysctl.${k}`)?.trim() ?? null, v]])),
      }),
    set({ exec, signal }) {
      const apply = Object.entries(SYSCTLS)
        .map(([k, v]) => `sysctl -q -w ${bashQuote(`${k}=${v}`)}`)
        .join(' && ');
      return applied(exec, `mkdir -p /etc/sysctl.d && cat > ${SYSCTL_FILE} && ${apply}`, 'set sysctls', { stdin: content, signal });
    },
  };
}

/** The Contrail directories; also checked by the verified phase. */
export function directories(): Resource {
  return {
    name: 'directories',
    facts: DIRS.map((d, i) => dirFact(`dir.${i}`, d, bashQuote)),
    test: (facts) => compare(Object.fromEntries(DIRS.map((d, i) => [d, [fact(facts, `dir.${i}`).status === 0, true]]))),
    set: ({ exec, signal }) => applied(exec, `mkdir -p ${DIRS.map(bashQuote).join(' ')}`, 'create directories', { signal }),
  };
}

export function linuxPrereqs(input: LinuxRoleInput): Phase {
  return {
    name: 'prereqs',
    resources: [
      // A node without a subnet holds no overlay (its label may have been removed in this commit). First:
      // it needs nothing else, and a set before it would make the phase read its facts once more.
      ...(input.overlay ? [] : [linuxOverlayAbsent()]),
      tool('docker', "docker version --format '{{.Server.Version}}'"),
      composePresent(),
      sysctls(),
      directories(),
    ],
  };
}
