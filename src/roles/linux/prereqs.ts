// Linux prereqs: Docker and Compose (v2 plugin or v1) present (groundcrew does not install them), sysctls, directories.

import { bashQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import type { LinuxRoleInput } from '../input.js';
import { type Phase, setByCommand } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { DOCKER_PS_QUERY } from './compose.js';
import { composePresent } from './compose-cli.js';
import { dirFact, fact, fileContent, fileFact } from './facts.js';
import { linuxOverlayAbsent } from './overlay.js';

const SYSCTL_FILE = '/etc/sysctl.d/60-contrail.conf';
const SYSCTLS: Record<string, string> = { 'net.ipv4.ip_forward': '1' };
const DIRS = ['/etc/contrail', '/etc/contrail/vrouter', '/var/log/contrail', '/var/lib/contrail'];

/**
 * Docker present and its daemon answering, or the phase cannot go on: groundcrew does not install Docker on
 * Linux nodes. Read by the `docker ps` the vRouter's containers are read with (one process for both; it fails
 * as `docker version`'s server part does when the CLI is missing or dockerd does not answer).
 */
function dockerPresent(): Resource {
  return {
    name: 'tool/docker',
    facts: [DOCKER_PS_QUERY],
    test: (facts) => compare({ Present: [fact(facts, DOCKER_PS_QUERY.id).status === 0, true] }),
    async set() {
      throw errors.GC_SET_FAILED(
        'docker is not installed on the node or its daemon does not answer: install or start it (groundcrew does not install Docker on Linux nodes)',
      );
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
      const setNow = Object.entries(SYSCTLS)
        .map(([k, v]) => `sysctl -q -w ${bashQuote(`${k}=${v}`)}`)
        .join(' && ');
      return setByCommand(exec, `mkdir -p /etc/sysctl.d && cat > ${SYSCTL_FILE} && ${setNow}`, 'set sysctls', { stdin: content, signal });
    },
  };
}

/** The Contrail directories; also checked by the verify phase. */
export function directories(): Resource {
  return {
    name: 'directories',
    facts: DIRS.map((d, i) => dirFact(`dir.${i}`, d, bashQuote)),
    test: (facts) => compare(Object.fromEntries(DIRS.map((d, i) => [d, [fact(facts, `dir.${i}`).status === 0, true]]))),
    set: ({ exec, signal }) => setByCommand(exec, `mkdir -p ${DIRS.map(bashQuote).join(' ')}`, 'create directories', { signal }),
  };
}

export function linuxPrereqs(input: LinuxRoleInput): Phase {
  return {
    name: 'prereqs',
    resources: [
      // A node without a subnet holds no overlay (its label may have been removed in this commit). First:
      // it needs nothing else, and a set before it would make the phase read its facts once more.
      ...(input.overlay ? [] : [linuxOverlayAbsent()]),
      dockerPresent(),
      composePresent(),
      sysctls(),
      directories(),
    ],
  };
}
