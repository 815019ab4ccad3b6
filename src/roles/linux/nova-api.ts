// A compute's view of the OpenStack controller's nova-api: its version list answers 200 without a token
// (OpenStack Compute API reference, "List All Major Versions": GET /, Normal Response Codes: 200), on kolla's
// nova_api_port 8774 (Juniper/contrail-kolla-ansible ansible/group_vars/all.yml). A check: nova-api is kolla-ansible's.

import { bashQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import type { NovaApiInput } from '../input.js';
import { compare, type Resource } from '../resource.js';
import { fact } from './facts.js';

export function novaApiUrl(n: NovaApiInput): string {
  return `http://${n.address}:${n.port ?? 8774}/`;
}

export function novaApiAnswers(n: NovaApiInput): Resource {
  const url = novaApiUrl(n);
  const answer = (facts: ReadonlyMap<string, unknown>) => {
    const f = fact(facts, 'nova.versions');
    return f.status === 0 ? f.stdout.trim() : `curl exit ${f.status}`;
  };
  return {
    name: 'nova-api/versions',
    facts: [{ id: 'nova.versions', sh: `curl -sS -o /dev/null -w '%{http_code}' ${bashQuote(url)}` }],
    test: (facts) => compare({ VersionList: [answer(facts), '200'] }),
    async set({ facts }) {
      throw errors.GC_NOVA_API_UNAVAILABLE(`nova-api at ${url} did not list its versions from this node: ${answer(facts)}`);
    },
  };
}
