// The node's virtual-router object in the Contrail config API: created once; 200 and 409 both mean done.

import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import type { WindowsRoleInput } from '../input.js';
import { identityApi, keystoneUrl, tokenRequest } from '../keystone.js';
import { change } from '../phase.js';
import { CHANGED, compare, type Resource } from '../resource.js';
import { HOST_NAME_FACT, routerName } from './router-name.js';

const MARKER = 'C:\\ProgramData\\Contrail\\var\\lib\\contrail\\virtual-router';

export function virtualRouterRegistered(input: WindowsRoleInput): Resource | undefined {
  const api = input.configApi;
  if (!api) return undefined;
  const endpoint = `http://${api.address}:${api.port ?? 8082}`;
  const record = (name: string | undefined) => `${endpoint} ${name ?? '(the host has not said its name)'}`;
  return {
    name: 'config-api/virtual-router',
    facts: [
      {
        id: 'vr.marker',
        ps: `if (Test-Path -LiteralPath ${psQuote(MARKER)}) { (Get-Content -LiteralPath ${psQuote(MARKER)} -Raw).Trim() } else { $null }`,
      },
      HOST_NAME_FACT,
    ],
    test: (facts) => compare({ Registered: [facts.get('vr.marker'), record(routerName(facts, input.domainSuffix))] }),
    async set({ exec, facts, signal }) {
      const name = routerName(facts, input.domainSuffix);
      if (!name) throw errors.GC_SET_FAILED('the host answered no name to `hostname`: its virtual-router cannot be named');
      const object = JSON.stringify({
        'virtual-router': {
          fq_name: ['default-global-system-config', name],
          parent_type: 'global-system-config',
          virtual_router_ip_address: input.address ?? '',
        },
      });
      const lines = ['$h = @{}'];
      if (input.keystone) {
        const url = psQuote(keystoneUrl(input.keystone));
        lines.push(
          '$auth = [Console]::In.ReadToEnd()',
          // v2.0 answers the token in the body (c-a-d: auth_token_response.json.access.token.id), v3 in a header.
          ...(identityApi(input.keystone) === 'v2.0'
            ? [
                `$r = Invoke-RestMethod -Uri ${url} -Method Post -Body $auth -ContentType 'application/json' -UseBasicParsing`,
                "$h['X-Auth-Token'] = $r.access.token.id",
              ]
            : [
                `$r = Invoke-WebRequest -Uri ${url} -Method Post -Body $auth -ContentType 'application/json' -UseBasicParsing`,
                "$h['X-Auth-Token'] = $r.Headers['X-Subject-Token']",
              ]),
        );
      }
      lines.push(
        `try { $code = (Invoke-WebRequest -Uri ${psQuote(`${endpoint}/virtual-routers`)} -Method Post -Body ${psQuote(object)} -ContentType 'application/json' -Headers $h -UseBasicParsing).StatusCode } catch { if ($_.Exception.Message -match '\\(409\\)') { $code = 409 } else { throw } }`,
        `Set-Content -LiteralPath ${psQuote(MARKER)} -Value ${psQuote(record(name))} -Encoding ASCII`,
        '$code',
      );
      try {
        await change(exec, lines.join('\n'), `register ${name} with the config API`, {
          signal,
          ...(input.keystone ? { stdin: tokenRequest(input.keystone) } : {}),
        });
      } catch (err) {
        throw errors.GC_CONFIG_API(`the config API at ${endpoint} did not take virtual-router ${name}: ${(err as Error).message}`, err);
      }
      return CHANGED;
    },
  };
}
