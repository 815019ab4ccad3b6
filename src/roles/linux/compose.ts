// A Docker Compose project of Contrail containers: its file, and its containers at the desired images and
// states. State is read from Docker's own labels (com.docker.compose.project and .service), which compose v1
// and v2 both set (v1 has no `ps --format json`), in one `docker ps` of every compose-made container
// (DOCKER_PS_QUERY): the same process answers whether Docker's daemon answers at all (prereqs' tool/docker).

import { stringify } from 'yaml';
import { bashQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import { setByCommand } from '../phase.js';
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

/**
 * The last files written, by their services as JSON: a re-verify compares every vRouter node's file, nodes
 * mostly want the same one, and YAML's stringify was the largest part of a re-verify's own CPU (a profile of
 * testPhases on a converged node, docs/BENCHMARKS.md). Bounded: a few distinct files, never one per node.
 */
const written = new Map<string, string>();
const WRITTEN_MAX = 32;

export function composeFile(services: Services): string {
  const key = JSON.stringify(services);
  const known = written.get(key);
  if (known !== undefined) return known;
  const text = stringify({ version: '2', services });
  if (written.size >= WRITTEN_MAX) written.delete(written.keys().next().value as string);
  written.set(key, text);
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
      return setByCommand(exec, `mkdir -p ${bashQuote(dir)} && cat > ${bashQuote(path)}`, `write ${path}`, { stdin: text, signal });
    },
  };
}

/** `docker ps --format '{{json .}}'`'s Status as a state word: `running`, `exited (0)`, `restarting (1)`. */
export function containerState(status: string): string {
  if (/^Up\b/.test(status)) return 'running';
  const m = /^(Exited|Restarting) \((-?\d+)\)/.exec(status);
  return m ? `${(m[1] as string).toLowerCase()} (${m[2]})` : status.toLowerCase() || 'unknown';
}

/**
 * Every container a compose (v1 or v2) made, whatever its project: `docker ps --filter label=KEY` keeps the
 * containers that carry the label KEY with any value (docker ps reference, "Filtering"). Its status is also
 * prereqs' answer to "does Docker answer": like `docker version`'s server part, it fails when dockerd is down.
 */
export const DOCKER_PS_QUERY = {
  id: 'docker.ps',
  sh: "docker ps -a --filter label=com.docker.compose.project --format '{{json .}}'",
};

/** Each compose service of `project`: `image state` (first container of a service wins). */
export function projectContainers(psJsonLines: string, project: string): Map<string, string> {
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
    if (labels.get('com.docker.compose.project') !== project) continue;
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
  /** A check only (the verify phase): its set never runs, so which Compose the node has is not read. */
  checkOnly?: boolean;
}

export function composeUpResource(project: string, path: string, desired: DesiredServices, options: UpOptions = {}): Resource {
  const runsOnce = new Set(options.runsOnce ?? []);
  return {
    name: `compose/${project}/up`,
    ...(options.disruptive ? { disruptive: true } : {}),
    facts: [...(options.facts ?? []), ...(options.checkOnly ? [] : [COMPOSE_CLI_QUERY]), DOCKER_PS_QUERY],
    test(facts) {
      const ps = fact(facts, DOCKER_PS_QUERY.id);
      // Docker not answering is not "no containers": the difference says so (prereqs' tool/docker says why).
      if (ps.status !== 0) return compare({ Docker: ['not answering', 'answering'] });
      const have = projectContainers(ps.stdout, project);
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
      return setByCommand(exec, command, `compose up ${project} (${cli.command} ${cli.version})`, { signal });
    },
  };
}
