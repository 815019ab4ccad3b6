// The host's OS family as Ansible names it (ansible_os_family), read from /etc/os-release: c-a-d's vRouter
// compose file differs by family (Juniper/contrail-ansible-deployer, tag v5.1,
// playbooks/roles/contrail_vrouter/tasks/main.yml "set vrouter kernel init image name").

import { bashQuote } from '../../dataplane/quote.js';
import type { Facts } from '../resource.js';
import { fact, fileFact } from './facts.js';

export type OsFamily = 'RedHat' | 'Debian';

const OS_RELEASE_FACT = 'os.release';

/**
 * The fact (read by builtins, no `cat`: a process less per read), declared by every resource that reads it: a phase re-reads only the facts of the resources still to
 * come after a change, so a fact another resource declared may be gone by then.
 */
export const OS_RELEASE_QUERY = fileFact(OS_RELEASE_FACT, '/etc/os-release', bashQuote);

/** A value of os-release(5): `KEY=value`, `KEY="value"` or `KEY='value'`. */
function osReleaseValue(text: string, key: string): string {
  const line = text.split('\n').find((l) => l.startsWith(`${key}=`));
  return (line?.slice(key.length + 1).trim() ?? '').replace(/^(["'])(.*)\1$/, '$2');
}

/** RedHat for rhel/centos/fedora, Debian for debian/ubuntu (ID, then ID_LIKE); undefined for anything else. */
export function parseOsFamily(osRelease: string): OsFamily | undefined {
  const ids = [osReleaseValue(osRelease, 'ID'), ...osReleaseValue(osRelease, 'ID_LIKE').split(/\s+/)].map((s) => s.toLowerCase());
  for (const id of ids) {
    if (['rhel', 'centos', 'fedora'].includes(id)) return 'RedHat';
    if (['debian', 'ubuntu'].includes(id)) return 'Debian';
  }
  return undefined;
}

/** The family from a resource's facts (it declares OS_RELEASE_QUERY). */
export function osFamily(facts: Facts): OsFamily | undefined {
  const f = fact(facts, OS_RELEASE_FACT);
  return f.status === 0 ? parseOsFamily(f.stdout) : undefined;
}

/** Why there is no vRouter compose file for this host: its family is not one c-a-d deploys the vRouter on. */
export function unknownFamily(facts: Facts): string {
  const f = fact(facts, OS_RELEASE_FACT);
  const found = f.status === 0 ? `ID=${osReleaseValue(f.stdout, 'ID') || '(none)'}` : 'no /etc/os-release';
  return `the node's OS family is not one contrail-ansible-deployer deploys the vRouter on (RedHat or Debian): ${found}`;
}
