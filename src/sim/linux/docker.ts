// docker (with compose) as a simulated Linux host answers it; files come from the caller.

import { createHash } from 'node:crypto';
import { type CommandResult, fail, ok } from '../command-result.js';
import { compose, type ReadFile } from './compose.js';
import type { ContainerState, LinuxHost } from './linux-host.js';

/** Reads a file of the host (its own /etc/contrail and so on); undefined when it does not exist. */
export type { ReadFile } from './compose.js';

function status(c: ContainerState): string {
  if (c.state === 'running') return 'Up 2 minutes';
  if (c.state === 'restarting') return `Restarting (${c.exitCode ?? 1}) 3 seconds ago`;
  return `Exited (${c.exitCode ?? 0}) 1 minute ago`;
}

function containerJson(c: ContainerState): string {
  return JSON.stringify({
    Command: '"/entrypoint.sh"',
    ID: createHash('sha1').update(c.name).digest('hex').slice(0, 12),
    Image: c.image,
    Labels: c.project ? `com.docker.compose.project=${c.project},com.docker.compose.service=${c.service}` : '',
    Names: c.name,
    State: c.state,
    Status: status(c),
  });
}

/** `docker ps --filter`: label=KEY, label=KEY=VALUE, name=PART, status=STATE; several must all hold. */
function filterOf(filters: string[]): ((c: ContainerState) => boolean) | string {
  const tests: ((c: ContainerState) => boolean)[] = [];
  for (const f of filters) {
    const at = f.indexOf('=');
    const [key, value] = at < 0 ? [f, ''] : [f.slice(0, at), f.slice(at + 1)];
    if (key === 'label') {
      const [k, v] = value.includes('=') ? [value.slice(0, value.indexOf('=')), value.slice(value.indexOf('=') + 1)] : [value, undefined];
      tests.push((c) => {
        const labels: Record<string, string | undefined> = c.project
          ? { 'com.docker.compose.project': c.project, 'com.docker.compose.service': c.service }
          : {};
        return k in labels && (v === undefined || labels[k] === v);
      });
    } else if (key === 'name') tests.push((c) => c.name.includes(value));
    else if (key === 'status') tests.push((c) => c.state === value);
    else return `Error response from daemon: invalid filter '${key}'\n`;
  }
  return (c) => tests.every((t) => t(c));
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
      // Without the plugin, docker's own CLI refuses the word as it refuses any unknown command.
      if (host.state.composeVersion === undefined) return fail("docker: 'compose' is not a docker command.\nSee 'docker --help'\n");
      return compose(host, 'v2', rest, readFile, cwd);
    case 'pull':
      return rest[0] ? host.pull(rest[0]) : fail('"docker pull" requires exactly 1 argument.\n');
    case 'images':
      return ok(host.state.images.map((i) => `${i}\n`).join(''));
    case 'image':
      if (rest[0] === 'inspect' && rest[1])
        return host.state.images.includes(rest[1]) ? ok(`[{"RepoTags":["${rest[1]}"]}]\n`) : fail(`Error: No such image: ${rest[1]}\n`);
      break;
    case 'ps': {
      const all = rest.includes('-a') || rest.includes('--all');
      const filters = rest.flatMap((a, i) => (a === '--filter' && rest[i + 1] !== undefined ? [rest[i + 1] as string] : []));
      const matches = filterOf(filters);
      if (typeof matches === 'string') return fail(matches);
      const list = Object.values(host.state.containers).filter((c) => (all || c.state !== 'exited') && matches(c));
      if (format === '{{json .}}' || format === 'json') return ok(list.map((c) => `${containerJson(c)}\n`).join(''));
      if (format === '{{.Names}}') return ok(list.map((c) => `${c.name}\n`).join(''));
      return ok(
        `CONTAINER ID   IMAGE   STATUS   NAMES\n${list.map((c) => `${c.name}   ${c.image}   ${status(c)}   ${c.name}`).join('\n')}\n`,
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
