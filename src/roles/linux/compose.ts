// A Docker Compose project of Contrail containers: its file, and its containers at the desired images and
// states. State is read from Docker's own labels (`docker ps --filter label=com.docker.compose.project=P`),
// which compose v1 and v2 both set: v1 has no `ps --format json`.

import { stringify } from 'yaml';
import { bashQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import { applied } from '../phase.js';
import { compare, type FactQuery, type Facts, type Resource } from '../resource.js';
import { COMPOSE_CLI_QUERY, requireComposeCli } from './compose-cli.js';
import { fact, fileContent, fileFact } from './facts.js';

/** A service as compose file format 2 spells it (the format c-a-d writes, which compose v1 needs declared). */
export interface ComposeService {
  image: string;
  env_file?: string;
  environment?: string[];
  privileged?: boolean;
  pid?: 'host';
  network_mode: 'host';
  volumes?: string[];
  volumes_from?: string[];
  depends_on?: string[];
  restart?: 'always' | 'on-failure' | 'unless-stopped';
  stdin_open?: boolean;
  tty?: boolean;
  logging?: { driver: string; options: Record<string, string> };
}

export type Services = Record<string, ComposeService>;

/** The project's services for the facts the phase read (the OS family), or a sentence saying why there are none. */
export type DesiredServices = (facts: Facts) => Services | string;

// The services are the same for every node of a role and version (the node's own values are in its env file),
// and the file is rendered for each test and set: yaml's stringify was the top self time of a converge once plans
// were built per phase run (docs/BENCHMARKS.md). So the text is kept by the services' JSON, a few at a time.
const rendered = new Map<string, string>();
const RENDERED_MAX = 64;

export function composeFile(services: Services): string {
  const key = JSON.stringify(services);
  const kept = rendered.get(key);
  if (kept !== undefined) return kept;
  const text = stringify({ version: '2', services });
  if (rendered.size >= RENDERED_MAX) rendered.delete(rendered.keys().next().value as string);
  rendered.set(key, text);
  return text;
}

function servicesOrFail(desired: DesiredServices, facts: Facts): Services {
  const services = desired(facts);
  if (typeof services === 'string') throw errors.GC_SET_FAILED(services);
  return services;
}

/** `facts`: what `desired` reads (the OS family). */
export function composeFileResource(project: string, path: string, desired: DesiredServices, facts: FactQuery[] = []): Resource {
  const id = `compose.${project}.file`;
  return {
    name: `compose/${project}/file`,
    facts: [...facts, fileFact(id, path, bashQuote)],
    test(read) {
      const services = desired(read);
      // Why there is no file to write is a property of its own, so the run report says it.
      if (typeof services === 'string') return compare({ Services: [services, 'known'] });
      return compare({ Content: [fileContent(read, id), composeFile(services)] });
    },
    async set({ exec, facts, signal }) {
      const text = composeFile(servicesOrFail(desired, facts));
      const dir = path.slice(0, path.lastIndexOf('/'));
      return applied(exec, `mkdir -p ${bashQuote(dir)} && cat > ${bashQuote(path)}`, `write ${path}`, { stdin: text, signal });
    },
  };
}

/** `docker ps --format '{{json .}}'`'s Status as a state word: `running`, `exited (0)`, `restarting (1)`. */
export function containerState(status: string): string {
  if (/^Up\b/.test(status)) return 'running';
  const m = /^(Exited|Restarting) \((-?\d+)\)/.exec(status);
  return m ? `${(m[1] as string).toLowerCase()} (${m[2]})` : status.toLowerCase() || 'unknown';
}

/** Each compose service of the project: `image state` (first container of a service wins). */
export function projectContainers(psJsonLines: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of psJsonLines.split('\n')) {
    let entry: { Image?: unknown; Labels?: unknown; Status?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (typeof entry !== 'object' || entry === null || typeof entry.Labels !== 'string') continue;
    const labels = new Map(entry.Labels.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    const service = labels.get('com.docker.compose.service');
    if (service && !found.has(service)) found.set(service, `${String(entry.Image)} ${containerState(String(entry.Status ?? ''))}`);
  }
  return found;
}

export interface UpOptions {
  disruptive?: boolean;
  /** Init containers that run to completion (node-init, kernel-init): desired `exited (0)`, not running. */
  runsOnce?: readonly string[];
  /** What `desired` reads (the OS family). */
  facts?: FactQuery[];
  /** A check only (the verified phase): its set never runs, so which Compose the node has is not read. */
  checkOnly?: boolean;
}

export function composeUpResource(project: string, path: string, desired: DesiredServices, options: UpOptions = {}): Resource {
  const id = `compose.${project}.ps`;
  const label = bashQuote(`label=com.docker.compose.project=${project}`);
  const runsOnce = new Set(options.runsOnce ?? []);
  return {
    name: `compose/${project}/up`,
    ...(options.disruptive ? { disruptive: true } : {}),
    facts: [
      ...(options.facts ?? []),
      ...(options.checkOnly ? [] : [COMPOSE_CLI_QUERY]),
      { id, sh: `docker ps -a --filter ${label} --format '{{json .}}'` },
    ],
    test(facts) {
      const have = projectContainers(fact(facts, id).stdout);
      const services = desired(facts);
      const want = typeof services === 'string' ? {} : services;
      const properties: Record<string, [unknown, unknown]> = {};
      for (const [name, s] of Object.entries(want))
        properties[name] = [have.get(name) ?? null, `${s.image} ${runsOnce.has(name) ? 'exited (0)' : 'running'}`];
      // Containers of the project no longer in the file (a service renamed): up --remove-orphans takes them away.
      for (const [name, state] of have) if (!(name in want)) properties[name] = [state, null];
      return compare(properties);
    },
    async set({ exec, facts, signal }) {
      servicesOrFail(desired, facts);
      const cli = requireComposeCli(facts);
      const command = `${cli.command} -p ${bashQuote(project)} -f ${bashQuote(path)} up -d --remove-orphans`;
      return applied(exec, command, `compose up ${project} (${cli.command} ${cli.version})`, { signal });
    },
  };
}
