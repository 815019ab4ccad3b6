// docker (with compose) as a simulated Linux host answers it; files come from the caller.

import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { type CommandResult, fail, ok } from '../command-result.js';
import type { LinuxHost } from './linux-host.js';

interface ComposeService {
  image?: string;
  container_name?: string;
  restart?: string;
  environment?: unknown;
  env_file?: unknown;
  network_mode?: string;
  privileged?: boolean;
  volumes?: unknown;
  depends_on?: unknown;
}

/** Reads a file of the host (its own /etc/contrail and so on); undefined when it does not exist. */
export type ReadFile = (path: string) => string | undefined;

function containerJson(c: { name: string; image: string; state: string; project?: string; service?: string }): string {
  return JSON.stringify({
    Command: '"/entrypoint.sh"',
    ID: createHash('sha1').update(c.name).digest('hex').slice(0, 12),
    Image: c.image,
    Labels: c.project ? `com.docker.compose.project=${c.project},com.docker.compose.service=${c.service}` : '',
    Names: c.name,
    State: c.state,
    Status: c.state === 'running' ? 'Up 2 minutes' : 'Exited (0) 1 minute ago',
  });
}

function pull(host: LinuxHost, image: string): CommandResult {
  if (!host.published(image))
    return fail(`Error response from daemon: manifest for ${image} not found: manifest unknown: manifest unknown\n`);
  if (!host.state.images.includes(image)) {
    host.state.images.push(image);
    host.record(`docker-pull ${image}`);
  }
  return ok(`Status: Image is up to date for ${image}\n`);
}

function compose(host: LinuxHost, args: string[], readFile: ReadFile, cwd: string): CommandResult {
  let file = `${cwd}/docker-compose.yaml`;
  let project: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-f' || args[i] === '--file') file = args[++i] ?? file;
    else if (args[i] === '-p' || args[i] === '--project-name') project = args[++i];
    else rest.push(args[i] as string);
  }
  const [verb, ...flags] = rest;
  if (verb === 'version')
    return ok(flags.includes('--short') ? `${host.state.composeVersion}\n` : `Docker Compose version v${host.state.composeVersion}\n`);
  const text = readFile(file);
  if (text === undefined) return fail(`open ${file}: no such file or directory\n`, 14);
  let services: Record<string, ComposeService>;
  try {
    services = (parseYaml(text) as { services?: Record<string, ComposeService> })?.services ?? {};
  } catch (err) {
    return fail(`yaml: ${(err as Error).message.split('\n')[0]}\n`, 15);
  }
  const name = project ?? file.split('/').slice(-2, -1)[0] ?? 'default';
  const containerName = (svc: string, def: ComposeService) => def.container_name ?? `${name}-${svc}-1`;
  switch (verb) {
    case 'up': {
      if (!flags.includes('-d') && !flags.includes('--detach')) return fail('groundcrew sim: only `compose up -d` is simulated\n');
      for (const [svc, def] of Object.entries(services)) {
        if (!def.image) return fail(`service "${svc}" has neither an image nor a build context specified: invalid compose project\n`, 15);
      }
      for (const def of Object.values(services)) {
        const pulled = pull(host, def.image as string);
        if (pulled.exitCode !== 0) return pulled;
      }
      for (const [svc, def] of Object.entries(services)) {
        const cname = containerName(svc, def);
        const envText = def.env_file
          ? [def.env_file]
              .flat()
              .map((f) => readFile(String(f)) ?? '')
              .join('\n')
          : '';
        const env: Record<string, string> = {};
        for (const line of envText.split('\n')) {
          const at = line.indexOf('=');
          if (at > 0 && !line.trimStart().startsWith('#')) env[line.slice(0, at).trim()] = line.slice(at + 1);
        }
        if (def.environment && typeof def.environment === 'object' && !Array.isArray(def.environment)) {
          for (const [k, v] of Object.entries(def.environment as Record<string, unknown>)) env[k] = String(v);
        }
        const config = createHash('sha1').update(JSON.stringify({ def, envText })).digest('hex');
        const existing = host.state.containers[cname];
        if (existing && existing.config === config && existing.state === 'running') continue;
        host.state.containers[cname] = {
          name: cname,
          image: def.image as string,
          state: 'running',
          project: name,
          service: svc,
          config,
          env,
          ...(def.restart ? { restart: def.restart } : {}),
        };
        host.record(`${existing ? 'recreate' : 'create'} ${cname} ${def.image}`);
      }
      return ok();
    }
    case 'ps': {
      const mine = Object.values(host.state.containers).filter((c) => c.project === name);
      if (flags.includes('--format') && flags[flags.indexOf('--format') + 1] === 'json') {
        return ok(
          `[${mine.map((c) => JSON.stringify({ Name: c.name, Service: c.service, Image: c.image, State: c.state, Project: c.project })).join(',')}]\n`,
        );
      }
      return ok(`NAME   IMAGE   SERVICE   STATUS\n${mine.map((c) => `${c.name}   ${c.image}   ${c.service}   ${c.state}`).join('\n')}\n`);
    }
    case 'down':
      for (const c of Object.values(host.state.containers)) {
        if (c.project === name) {
          delete host.state.containers[c.name];
          host.record(`remove ${c.name}`);
        }
      }
      return ok();
    default:
      return fail(`groundcrew sim: docker compose ${verb ?? ''} is outside the simulated subset\n`);
  }
}

export function docker(host: LinuxHost, argv: string[], readFile: ReadFile, cwd = '/root'): CommandResult {
  if (!host.state.units.docker?.active)
    return fail('Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n');
  const [verb, ...rest] = argv;
  const format = rest.includes('--format')
    ? rest[rest.indexOf('--format') + 1]
    : rest.includes('-f')
      ? rest[rest.indexOf('-f') + 1]
      : undefined;
  switch (verb) {
    case 'version':
      return format === '{{.Server.Version}}'
        ? ok(`${host.state.dockerVersion}\n`)
        : ok(`Client:\n Version: ${host.state.dockerVersion}\nServer:\n Version: ${host.state.dockerVersion}\n`);
    case 'compose':
      return compose(host, rest, readFile, cwd);
    case 'pull':
      return rest[0] ? pull(host, rest[0]) : fail('"docker pull" requires exactly 1 argument.\n');
    case 'images':
      return ok(host.state.images.map((i) => `${i}\n`).join(''));
    case 'image':
      if (rest[0] === 'inspect' && rest[1])
        return host.state.images.includes(rest[1]) ? ok(`[{"RepoTags":["${rest[1]}"]}]\n`) : fail(`Error: No such image: ${rest[1]}\n`);
      break;
    case 'ps': {
      const all = rest.includes('-a') || rest.includes('--all');
      const list = Object.values(host.state.containers).filter((c) => all || c.state === 'running');
      if (format === '{{json .}}' || format === 'json') return ok(list.map((c) => `${containerJson(c)}\n`).join(''));
      return ok(
        `CONTAINER ID   IMAGE   STATUS   NAMES\n${list.map((c) => `${c.name}   ${c.image}   ${c.state}   ${c.name}`).join('\n')}\n`,
      );
    }
    case 'inspect': {
      const c = rest[0] ? host.state.containers[rest[0]] : undefined;
      if (!c) return fail(`Error: No such object: ${rest[0]}\n`);
      return ok(
        `${JSON.stringify([{ Name: `/${c.name}`, Config: { Image: c.image }, State: { Status: c.state, Running: c.state === 'running' } }])}\n`,
      );
    }
    case 'start':
    case 'stop':
    case 'restart': {
      const c = rest[0] ? host.state.containers[rest[0]] : undefined;
      if (!c) return fail(`Error response from daemon: No such container: ${rest[0]}\n`);
      const state = verb === 'stop' ? 'exited' : 'running';
      if (c.state !== state || verb === 'restart') host.record(`${verb} ${c.name}`);
      c.state = state;
      return ok(`${c.name}\n`);
    }
  }
  return fail(`groundcrew sim: docker ${argv.join(' ')} is outside the simulated subset (docs/simulator.md)\n`);
}
