// Keystone answers from this node and the configured credentials get a token (both OSes).

import { bashQuote, psQuote } from '../dataplane/quote.js';
import { errors } from '../errors.js';
import type { Os } from '../os.js';
import type { LinuxFact } from './facts.js';
import type { KeystoneInput } from './input.js';
import { compare, type Resource } from './resource.js';

export function keystoneUrl(k: KeystoneInput): string {
  return `http://${k.address}:${k.port ?? 5000}/v3/auth/tokens`;
}

/** The token request; it holds the password, so it only ever travels on stdin. */
export function tokenRequest(k: KeystoneInput): string {
  const domain = { name: k.domain };
  return JSON.stringify({
    auth: {
      identity: { methods: ['password'], password: { user: { name: k.user, domain, password: k.password } } },
      scope: { project: { name: k.project, domain } },
    },
  });
}

export function keystoneToken(os: Os, k: KeystoneInput): Resource {
  const url = keystoneUrl(k);
  const fact =
    os === 'windows'
      ? {
          id: 'keystone.token',
          ps: `try { (Invoke-WebRequest -Uri ${psQuote(url)} -Method Post -Body $GcStdin -ContentType 'application/json' -UseBasicParsing).StatusCode } catch { $_.Exception.Message }`,
        }
      : {
          id: 'keystone.token',
          sh: `curl -sS -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @- ${bashQuote(url)} <<<"$GC_STDIN"`,
        };
  const answer = (facts: ReadonlyMap<string, unknown>): string => {
    const value = facts.get('keystone.token');
    if (os === 'linux') {
      const f = value as LinuxFact;
      return f.status === 0 ? f.stdout.trim() : `curl exit ${f.status}`;
    }
    return String(value ?? 'no answer');
  };
  return {
    name: 'keystone/token',
    facts: [fact],
    factsStdin: tokenRequest(k),
    test: (facts) => compare({ TokenRequest: [answer(facts), '201'] }),
    async set({ facts }) {
      const got = answer(facts);
      if (/\b401\b/.test(got)) throw errors.GC_KEYSTONE_AUTH(`Keystone at ${url} refused the credentials of ${k.user} (${got})`);
      throw errors.GC_KEYSTONE_UNAVAILABLE(`Keystone at ${url} did not give a token from this node: ${got}`);
    },
  };
}
