// Taking groundcrew's components off a Linux node removed from the inventory (removalPolicy: deconfigure):
// the vRouter compose project down, then its files removed; the overlay's bridge and routes removed.

import { bashQuote } from '../../dataplane/quote.js';
import { type Phase, setByCommand } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { COMPOSE_CLI_QUERY, requireComposeCli } from './compose-cli.js';
import { fileContent, fileFact } from './facts.js';
import { linuxOverlayAbsent } from './overlay.js';
import { ENV_FILE, VROUTER_COMPOSE, VROUTER_PROJECT } from './vrouter.js';

function vrouterAbsent(): Resource {
  return {
    name: 'absent/vrouter',
    facts: [COMPOSE_CLI_QUERY, fileFact('absent.compose', VROUTER_COMPOSE, bashQuote), fileFact('absent.env', ENV_FILE, bashQuote)],
    disruptive: true,
    test: (facts) =>
      compare({
        ComposeFile: [fileContent(facts, 'absent.compose') !== null, false],
        EnvFile: [fileContent(facts, 'absent.env') !== null, false],
      }),
    async set({ exec, facts, signal }) {
      let down = '';
      if (fileContent(facts, 'absent.compose') !== null) {
        const cli = requireComposeCli(facts);
        down = `${cli.command} -p ${bashQuote(VROUTER_PROJECT)} -f ${bashQuote(VROUTER_COMPOSE)} down --remove-orphans && `;
      }
      return setByCommand(
        exec,
        `${down}rm -f ${bashQuote(VROUTER_COMPOSE)} ${bashQuote(ENV_FILE)}`,
        'remove the vRouter containers and files',
        {
          signal,
        },
      );
    },
  };
}

export function linuxDeconfigure(): Phase {
  return { name: 'deconfigure', resources: [vrouterAbsent(), linuxOverlayAbsent()] };
}
