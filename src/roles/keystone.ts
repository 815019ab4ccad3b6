// Keystone answers from this node and the configured credentials get a token (both OSes).

import { bashQuote, psQuote } from '../dataplane/quote.js';
import { errors } from '../errors.js';
import type { Os } from '../os.js';
import type { LinuxFact } from './facts.js';
import type { KeystoneInput } from './input.js';
import { compare, type Resource } from './resource.js';

/** Keystone's root as c-a-d writes it: KEYSTONE_AUTH_PROTO://KEYSTONE_AUTH_HOST:KEYSTONE_AUTH_PUBLIC_PORT. */
export function keystoneRoot(k: KeystoneInput): string {
  return `${k.proto ?? 'http'}://${k.address}:${k.port ?? 5000}`;
}

/** Where a token is asked for: the root and KEYSTONE_AUTH_URL_TOKENS (c-a-d "get auth token from keystone"). */
export function keystoneUrl(k: KeystoneInput): string {
  return `${keystoneRoot(k)}${k.urlTokens ?? '/v2.0/tokens'}`;
}

/**
 * Which Identity API the token URL speaks: v3 at `/v3/auth/tokens` (201, the token in X-Subject-Token), else v2.0
 * (`/v2.0/tokens`: 200, the token in access.token.id). Keystone's API references for both.
 */
export function identityApi(k: KeystoneInput): 'v2.0' | 'v3' {
  return /\/auth\/tokens\/?$/.test(k.urlTokens ?? '') ? 'v3' : 'v2.0';
}

/** The token request for that API; it holds the password, so it only ever travels on stdin. */
export function tokenRequest(k: KeystoneInput): string {
  if (identityApi(k) === 'v2.0')
    // c-a-d's body, and contrail-go-api's KeystoneClient.Authenticate (the CNM plugin's client).
    return JSON.stringify({ auth: { tenantName: k.project, passwordCredentials: { username: k.user, password: k.password } } });
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
  const issued = identityApi(k) === 'v3' ? '201' : '200';
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
    test: (facts) => compare({ TokenRequest: [answer(facts), issued] }),
    async set({ facts }) {
      const got = answer(facts);
      if (/\b401\b/.test(got)) throw errors.GC_KEYSTONE_AUTH(`Keystone at ${url} refused the credentials of ${k.user} (${got})`);
      if (/\b404\b/.test(got))
        throw errors.GC_KEYSTONE_UNAVAILABLE(
          `Keystone at ${url} does not serve that path (${got}): KEYSTONE_AUTH_URL_TOKENS names the Identity API (c-a-d's default /v2.0/tokens; Keystone since Queens serves only /v3/auth/tokens)`,
        );
      throw errors.GC_KEYSTONE_UNAVAILABLE(`Keystone at ${url} did not give a token from this node: ${got}`);
    },
  };
}
