// Docker Compose on a simulated Linux host, as the v2 plugin (`docker compose`) or the standalone v1
// (`docker-compose`) answers: the compose file actually written, pulls, containers started in dependency
// order, recreated only when their definition changed. Where the two differ, each answers as itself.

import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { type CommandResult, fail, ok } from '../command-result.js';
import { startContainer } from './contrail-containers.js';
import type { LinuxHost } from './linux-host.js';

export type ComposeFlavour = 'v1' | 'v2';

interface ServiceDef {
  image?: string;
  container_name?: string;
  restart?: string;
  environment?: unknown;
  env_file?: unknown;
  network_mode?: string;
  privileged?: boolean;
  volumes?: unknown;
  depends_on?: unknown;
  volumes_from?: unknown;
}

/** Reads a file of the host (its own /etc/contrail and so on); undefined when it does not exist. */
export type ReadFile = (path: string) => string | undefined;

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []);

function environment(def: ServiceDef, readFile: ReadFile): { env: Record<string, string>; envText: string } {
  const envText = list(def.env_file)
    .map((f) => readFile(f) ?? '')
    .join('\n');
  const env: Record<string, string> = {};
  const add = (line: string) => {
    const at = line.indexOf('=');
    if (at > 0 && !line.trimStart().startsWith('#')) env[line.slice(0, at).trim()] = line.slice(at + 1);
  };
  for (const line of envText.split('\n')) add(line);
  if (Array.isArray(def.environment)) for (const line of def.environment) add(String(line));
  else if (def.environment && typeof def.environment === 'object')
    for (const [k, v] of Object.entries(def.environment as Record<string, unknown>)) env[k] = String(v);
  return { env, envText };
}

/** Services in the order compose starts them: each after what it depends on (or takes volumes from). */
function startOrder(services: Record<string, ServiceDef>): string[] | { missing: [string, string] } | { cycle: string } {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string): { missing: [string, string] } | { cycle: string } | undefined => {
    if (state.get(name) === 'done') return undefined;
    if (state.get(name) === 'visiting') return { cycle: name };
    state.set(name, 'visiting');
    const def = services[name] as ServiceDef;
    for (const dep of [...list(def.depends_on), ...list(def.volumes_from)]) {
      if (!(dep in services)) return { missing: [name, dep] };
      const problem = visit(dep);
      if (problem) return problem;
    }
    state.set(name, 'done');
    order.push(name);
    return undefined;
  };
  for (const name of Object.keys(services)) {
    const problem = visit(name);
    if (problem) return problem;
  }
  return order;
}

function up(
  host: LinuxHost,
  flavour: ComposeFlavour,
  project: string,
  services: Record<string, ServiceDef>,
  readFile: ReadFile,
): CommandResult {
  for (const [svc, def] of Object.entries(services)) {
    if (!def?.image) return fail(`service "${svc}" has neither an image nor a build context specified: invalid compose project\n`, 15);
  }
  const order = startOrder(services);
  if ('missing' in order)
    return flavour === 'v2'
      ? fail(`service "${order.missing[0]}" depends on undefined service "${order.missing[1]}": invalid compose project\n`, 15)
      : fail(`ERROR: Service '${order.missing[0]}' depends on service '${order.missing[1]}' which is undefined.\n`);
  if ('cycle' in order) return fail(`dependency cycle detected at service ${order.cycle}\n`, 15);
  for (const svc of order) {
    const pulled = host.pull(services[svc]?.image as string);
    if (pulled.exitCode !== 0) return pulled;
  }
  for (const svc of order) {
    const def = services[svc] as ServiceDef;
    const cname = def.container_name ?? (flavour === 'v2' ? `${project}-${svc}-1` : `${project}_${svc}_1`);
    const { env, envText } = environment(def, readFile);
    const config = createHash('sha1').update(JSON.stringify({ def, envText })).digest('hex');
    const existing = host.state.containers[cname];
    if (existing && existing.config === config && existing.state === 'running') continue;
    const spec = {
      image: def.image as string,
      privileged: def.privileged === true,
      ...(def.network_mode ? { networkMode: def.network_mode } : {}),
      ...(def.restart ? { restart: def.restart } : {}),
      volumes: list(def.volumes),
    };
    const outcome = startContainer(host.kernel, cname, spec);
    host.state.containers[cname] = { name: cname, project, service: svc, config, env, ...spec, ...outcome };
    const verb = !existing ? 'create' : existing.config === config ? 'start' : 'recreate';
    host.record(`${verb} ${cname} ${def.image}${outcome.state === 'running' ? '' : ` -> ${outcome.state} (${outcome.exitCode ?? 0})`}`);
  }
  return ok();
}

/** `docker compose ARGS` (v2) or `docker-compose ARGS` (v1). */
export function compose(host: LinuxHost, flavour: ComposeFlavour, args: string[], readFile: ReadFile, cwd: string): CommandResult {
  let file = `${cwd}/docker-compose.yaml`;
  let project: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-f' || args[i] === '--file') file = args[++i] ?? file;
    else if (args[i] === '-p' || args[i] === '--project-name') project = args[++i];
    else rest.push(args[i] as string);
  }
  const [verb, ...flags] = rest;
  const version = flavour === 'v2' ? host.state.composeVersion : host.state.composeV1Version;
  if (verb === 'version') {
    if (flags.includes('--short')) return ok(`${version}\n`);
    return ok(flavour === 'v2' ? `Docker Compose version v${version}\n` : `docker-compose version ${version}, build unknown\n`);
  }
  const text = readFile(file);
  if (text === undefined)
    return flavour === 'v2'
      ? fail(`open ${file}: no such file or directory\n`, 14)
      : fail(`ERROR: .FileNotFoundError: [Errno 2] No such file or directory: '${file}'\n`);
  let parsed: { version?: unknown; services?: Record<string, ServiceDef> };
  try {
    parsed = (parseYaml(text) ?? {}) as typeof parsed;
  } catch (err) {
    return fail(`yaml: ${(err as Error).message.split('\n')[0]}\n`, 15);
  }
  // Compose v1 reads a file without `version` as the legacy format, where every top-level key is a service.
  if (flavour === 'v1' && !/^[23](\.\d+)?$/.test(String(parsed.version ?? '')))
    return fail(
      `ERROR: The Compose file '${file}' is invalid because:\nUnsupported config option for services: '${Object.keys(parsed.services ?? {})[0] ?? ''}'\n`,
    );
  const services = parsed.services ?? {};
  const dir = file.split('/').slice(-2, -1)[0] ?? 'default';
  // v1 keeps only letters and digits of the directory's name; v2 keeps - and _ too.
  const name = project ?? (flavour === 'v1' ? dir.toLowerCase().replace(/[^a-z0-9]/g, '') : dir.toLowerCase());
  switch (verb) {
    case 'up': {
      if (!flags.includes('-d') && !flags.includes('--detach')) return fail('groundcrew sim: only `compose up -d` is simulated\n');
      const result = up(host, flavour, name, services, readFile);
      if (result.exitCode === 0 && flags.includes('--remove-orphans')) host.removeContainers(name, (svc) => !(svc in services));
      return result;
    }
    case 'ps': {
      // v2 lists running containers unless asked for all (-a); v1 lists them all.
      const all = flavour === 'v1' || flags.includes('-a') || flags.includes('--all');
      const mine = Object.values(host.state.containers).filter((c) => c.project === name && (all || c.state !== 'exited'));
      if (flags.includes('--format')) {
        if (flavour === 'v1') return fail('Usage: ps [options] [SERVICE...]\n');
        // One JSON array, as Compose 2.20 prints it (2.21 and later print one object per line).
        const entry = (c: (typeof mine)[number]) =>
          JSON.stringify({ Name: c.name, Service: c.service, Image: c.image, State: c.state, Project: c.project });
        if (flags[flags.indexOf('--format') + 1] === 'json') return ok(`[${mine.map(entry).join(',')}]\n`);
      }
      return ok(`NAME   IMAGE   SERVICE   STATUS\n${mine.map((c) => `${c.name}   ${c.image}   ${c.service}   ${c.state}`).join('\n')}\n`);
    }
    case 'down':
      host.removeContainers(name, () => true);
      return ok();
    default:
      return fail(
        `groundcrew sim: ${flavour === 'v2' ? 'docker compose' : 'docker-compose'} ${verb ?? ''} is outside the simulated subset\n`,
      );
  }
}
