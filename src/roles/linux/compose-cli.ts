// Which Docker Compose the node has: the v2 plugin (`docker compose`) or the standalone v1
// (`docker-compose`, what CentOS 7 era hosts carry); v2 is preferred. groundcrew installs neither.

import { bashQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import type { Facts } from '../resource.js';
import { compare, type Resource } from '../resource.js';
import { COMPOSE_CLI_CACHE, type ComposeCliCache, cachedComposeDetection } from './compose-cli-cache.js';
import { fact } from './facts.js';

export interface ComposeCli {
  /** The command line that runs it: `docker compose` or `docker-compose`. */
  command: 'docker compose' | 'docker-compose';
  version: string;
}

export const COMPOSE_CLI_FACT = 'compose.cli';

/**
 * Both answer `version --short` (v1 since 1.x's own `version` command); docker without the plugin refuses
 * `compose`. Run in the facts script's own shell (a function: the CLI each `$(...)` runs is the only process).
 */
const DETECT = [
  'if gc_x=$(docker compose version --short); then gc_v="v2 $gc_x"',
  'elif gc_x=$(docker-compose version --short); then gc_v="v1 $gc_x"',
  'else return 1; fi',
].join('\n');

/** The fact, remembered on the node (compose-cli-cache.ts): a re-verify that finds nothing changed runs no CLI. */
export function composeCliQuery(cache: ComposeCliCache = COMPOSE_CLI_CACHE) {
  return { id: COMPOSE_CLI_FACT, shBuiltin: cachedComposeDetection(DETECT, cache, bashQuote) };
}

export const COMPOSE_CLI_QUERY = composeCliQuery();

export function composeCli(facts: Facts): ComposeCli | undefined {
  const f = fact(facts, COMPOSE_CLI_FACT);
  const m = /^(v1|v2) (\S+)/.exec(f.stdout.trim());
  if (f.status !== 0 || !m) return undefined;
  return { command: m[1] === 'v2' ? 'docker compose' : 'docker-compose', version: m[2] as string };
}

export const NO_COMPOSE =
  'neither `docker compose` (the v2 plugin) nor `docker-compose` (v1) is installed on the node: install one (groundcrew does not install Docker or Compose on Linux nodes)';

/** The CLI a set must use; the phase fails with what is missing when there is none. */
export function requireComposeCli(facts: Facts): ComposeCli {
  const cli = composeCli(facts);
  if (!cli) throw errors.GC_SET_FAILED(NO_COMPOSE);
  return cli;
}

/** Prereqs: one of the two is present (a check: groundcrew never installs it). */
export function composePresent(): Resource {
  return {
    name: 'tool/compose',
    facts: [COMPOSE_CLI_QUERY],
    test: (facts) => compare({ Present: [composeCli(facts) !== undefined, true] }),
    async set() {
      throw errors.GC_SET_FAILED(NO_COMPOSE);
    },
  };
}
