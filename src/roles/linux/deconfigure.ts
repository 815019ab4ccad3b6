// Taking groundcrew's components off a Linux node removed from the inventory (removalPolicy: deconfigure):
// the vRouter compose project down, then its files removed; the overlay's bridge and routes removed.

import { bashQuote } from '../../dataplane/quote.js';
import { applied, type Phase } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { fileContent, fileFact } from './facts.js';
import { linuxOverlayAbsent } from './overlay.js';
import { ENV_FILE, VROUTER_COMPOSE } from './vrouter.js';

function vrouterAbsent(): Resource {
  return {
    name: 'absent/vrouter',
    facts: [fileFact('absent.compose', VROUTER_COMPOSE, bashQuote), fileFact('absent.env', ENV_FILE, bashQuote)],
    disruptive: true,
    test: (facts) =>
      compare({
        ComposeFile: [fileContent(facts, 'absent.compose') !== null, false],
        EnvFile: [fileContent(facts, 'absent.env') !== null, false],
      }),
    async set({ exec, facts, signal }) {
      const down =
        fileContent(facts, 'absent.compose') !== null ? `docker compose -f ${bashQuote(VROUTER_COMPOSE)} down --remove-orphans && ` : '';
      return applied(exec, `${down}rm -f ${bashQuote(VROUTER_COMPOSE)} ${bashQuote(ENV_FILE)}`, 'remove the vRouter containers and files', {
        signal,
      });
    },
  };
}

export function linuxDeconfigure(): Phase {
  return { name: 'deconfigure', resources: [vrouterAbsent(), linuxOverlayAbsent()] };
}
