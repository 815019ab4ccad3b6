// docker.exe on a simulated Windows host: version, pull, images, transparent networks, and `docker run` of
// the Contrail images, which leaves that build's MSIs and certificate in the mounted directory.

import type { NativeResult, NativeSpec } from '../shells/powershell/commands.js';
import { networkId, productCode } from './identifiers.js';
import { msiContent, testCertificate } from './msi.js';
import type { WindowsHost } from './windows-host.js';
import { DOCKER_EXE } from './windows-paths.js';

/** `docker network create -d transparent --subnet S --gateway G [-o ...interface=A] NAME` and `docker network rm NAME`. */
function network(host: WindowsHost, args: string[]): NativeResult {
  const [verb, ...rest] = args;
  const value = (flag: string) => {
    const at = rest.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
    if (at < 0) return undefined;
    const arg = rest[at] as string;
    return arg.includes('=') && arg.startsWith('--') ? arg.slice(arg.indexOf('=') + 1) : rest[at + 1];
  };
  const flags = new Set(['-d', '--driver', '--subnet', '--gateway', '-o', '--opt']);
  const name = rest.filter((a, i) => !a.startsWith('-') && !flags.has(rest[i - 1] ?? '')).at(-1);
  if (verb === 'ls') return listNetworks(host, rest);
  if (!name) return { stdout: '', stderr: `"docker network ${verb}" requires at least 1 argument.\r\n`, exitCode: 1 };
  if (verb === 'rm') {
    if (!host.state.hnsNetworks.some((n) => n.name === name))
      return { stdout: '', stderr: `Error: No such network: ${name}\r\n`, exitCode: 1 };
    host.removeNetwork(name);
    host.record(`docker-network-rm ${name}`);
    return { stdout: `${name}\r\n`, exitCode: 0 };
  }
  if (verb !== 'create')
    return { stdout: '', stderr: `groundcrew sim: docker network ${verb} is outside the simulated subset\r\n`, exitCode: 1 };
  const driver = value('-d') ?? value('--driver') ?? 'nat';
  if (host.state.hnsNetworks.some((n) => n.name === name))
    return { stdout: '', stderr: `Error response from daemon: network with name ${name} already exists\r\n`, exitCode: 1 };
  if (driver !== 'transparent')
    return { stdout: '', stderr: `groundcrew sim: docker network create -d ${driver} is outside the simulated subset\r\n`, exitCode: 1 };
  const subnet = value('--subnet');
  const gateway = value('--gateway');
  const adapter = (value('-o') ?? value('--opt') ?? '').replace(/^com\.docker\.network\.windowsshim\.interface=/, '') || 'Ethernet0';
  // HNS's HCN_E_ADAPTER_NOT_FOUND (0x803B0006), which names no adapter: "An adapter was not found. " (microsoft/SDN#269,
  // moby/moby#41094), in Docker 18.09's "HNS failed with error : <text>" (docker/for-win#750, #1960).
  if (!host.adapters().some((a) => a.name.toLowerCase() === adapter.toLowerCase()))
    return { stdout: '', stderr: 'Error response from daemon: HNS failed with error : An adapter was not found. \r\n', exitCode: 1 };
  const id = productCode(name, `${subnet}@${host.state.journal.length}`).slice(1, -1);
  host.state.hnsNetworks.push({
    name,
    type: 'Transparent',
    id,
    adapter,
    driver: 'transparent',
    ...(subnet ? { subnets: [{ addressPrefix: subnet, gatewayAddress: gateway ?? '' }] } : {}),
  });
  host.record(`docker-network-create ${name} ${subnet ?? ''} ${gateway ?? ''}`);
  return { stdout: `${id.toLowerCase()}\r\n`, exitCode: 0 };
}

/** `docker network ls [--filter driver=D] [--quiet | --format '{{.Name}}']`: the networks Docker made (a driver). */
function listNetworks(host: WindowsHost, args: string[]): NativeResult {
  const filter = args.find((_a, i) => args[i - 1] === '--filter' || args[i - 1] === '-f');
  const driver = filter?.startsWith('driver=') ? filter.slice('driver='.length) : undefined;
  if (filter && !driver)
    return { stdout: '', stderr: `groundcrew sim: docker network ls --filter ${filter} is outside the simulated subset\r\n`, exitCode: 1 };
  const nets = [
    { id: networkId('none'), name: 'none', driver: 'null' },
    ...host.state.hnsNetworks
      .filter((n) => n.driver)
      .map((n) => ({ id: n.id.replace(/-/g, '').toLowerCase(), name: n.name, driver: n.driver as string })),
  ].filter((n) => !driver || n.driver === driver);
  const format = args[args.indexOf('--format') + 1];
  if (args.includes('--quiet') || args.includes('-q')) return { stdout: nets.map((n) => `${n.id.slice(0, 12)}\r\n`).join(''), exitCode: 0 };
  if (args.includes('--format') && format === '{{.Name}}') return { stdout: nets.map((n) => `${n.name}\r\n`).join(''), exitCode: 0 };
  const rows = nets.map((n) => `${n.id.slice(0, 12).padEnd(20)}${n.name.padEnd(20)}${n.driver.padEnd(16)}local`);
  return {
    stdout: ['NETWORK ID          NAME                DRIVER          SCOPE', ...rows].map((l) => `${l}\r\n`).join(''),
    exitCode: 0,
  };
}

const NOT_RUNNING =
  'error during connect: This error may indicate that the docker daemon is not running.: Get http://%2F%2F.%2Fpipe%2Fdocker_engine/v1.39/version: open //./pipe/docker_engine: The system cannot find the file specified.\r\n';

/** The repository of an image reference: its last path component, without the tag. */
function repositoryOf(image: string): string | undefined {
  return image
    .replace(/:[^:/]*$/, '')
    .split('/')
    .pop();
}

/**
 * The images the registry serves: the vRouter as `contrail-windows-vrouter` (test-signed) and, where the
 * registry carries it (catalog.signedVrouter), `contrail-windows-vrouter-signed` (c-a-d contrail_vrouter_windows:
 * "select image with signed vRouter" when WINDOWS_USE_SIGNED_VROUTER is defined); the docker driver by either name.
 */
function imageKind(image: string, host: WindowsHost): 'vrouter' | 'cnm-plugin' | undefined {
  const repo = repositoryOf(image);
  if (repo === 'contrail-windows-vrouter') return 'vrouter';
  if (repo === 'contrail-windows-vrouter-signed' && host.state.catalog.signedVrouter) return 'vrouter';
  if (repo === 'contrail-windows-cnm-plugin' || repo === 'contrail-windows-docker-driver') return 'cnm-plugin';
  return undefined;
}

/** The registry an image reference names: its first component when that has a dot or port (or is localhost), else Docker Hub. */
export function registryOf(image: string): string {
  const first = image.split('/')[0] ?? '';
  return image.includes('/') && (/[.:]/.test(first) || first === 'localhost') ? first : 'docker.io';
}

function pull(host: WindowsHost, image: string): NativeResult {
  const registry = registryOf(image);
  if (!host.state.catalog.registries.includes(registry))
    return {
      stdout: '',
      stderr: `Error response from daemon: Get https://${registry}/v2/: dial tcp: lookup ${registry.replace(/:\d+$/, '')}: no such host\r\n`,
      exitCode: 1,
    };
  // A registry without TLS: Docker tries HTTPS and is refused, unless daemon.json named it in insecure-registries
  // when Docker started (or it is on 127.0.0.0/8). Docker docs, "Test an insecure registry" (its error text).
  if (
    host.state.catalog.plainHttpRegistries?.includes(registry) &&
    !/^127\./.test(registry) &&
    !host.state.docker?.insecureRegistries?.includes(registry)
  )
    return {
      stdout: '',
      stderr: `Error response from daemon: Get https://${registry}/v2/: http: server gave HTTP response to HTTPS client\r\n`,
      exitCode: 1,
    };
  const tag = image.includes(':') ? image.slice(image.lastIndexOf(':') + 1) : 'latest';
  if (!imageKind(image, host) || !host.state.catalog.contrailVersions.includes(tag)) {
    return {
      stdout: '',
      stderr: `Error response from daemon: manifest for ${image} not found: manifest unknown: manifest unknown\r\n`,
      exitCode: 1,
    };
  }
  if (!host.state.images.includes(image)) {
    host.state.images.push(image);
    host.record(`docker-pull ${image}`);
  }
  return { stdout: `${tag}: Pulling from ${image.replace(/:[^:]*$/, '')}\r\nStatus: Downloaded newer image for ${image}\r\n`, exitCode: 0 };
}

/** What `docker run --rm -v HOST:C:\Artifacts IMAGE` leaves in HOST: the MSIs and certificate of that build. */
function extract(host: WindowsHost, image: string, dir: string): void {
  const version = image.slice(image.lastIndexOf(':') + 1);
  if (imageKind(image, host) === 'vrouter') {
    host.fs.put(`${dir}\\agent\\contrail-vrouter-agent.msi`, msiContent('agent', version));
    host.fs.put(`${dir}\\vrouter\\vRouter.msi`, msiContent('vrouter', version, repositoryOf(image) === 'contrail-windows-vrouter-signed'));
    host.fs.put(`${dir}\\vrouter\\utils.msi`, msiContent('utils', version));
    host.fs.put(`${dir}\\vrouter\\vRouter.cer`, testCertificate(version));
    // contrail-windows-ci Installation.ps1 (Install-Nodemgr) pip-installs C:\\Artifacts\\nodemgr\\*.tar.gz.
    host.fs.put(`${dir}\\nodemgr\\contrail-nodemgr-${version}.tar.gz`, `contrail-nodemgr ${version}`);
  } else if (image.includes('/contrail-windows-docker-driver:')) {
    // Contrail 5.0's name (c-a-d create_win_docker_driver.yml): docker-driver\\docker-driver.msi.
    host.fs.put(`${dir}\\docker-driver\\docker-driver.msi`, msiContent('cnm-plugin', version, false, 'docker-driver'));
  } else {
    host.fs.put(`${dir}\\cnm-plugin\\contrail-cnm-plugin.msi`, msiContent('cnm-plugin', version));
  }
  host.record(`docker-run ${image}`);
}

export const DOCKER_NATIVE: NativeSpec<WindowsHost> = {
  names: ['docker'],
  run(host, argv) {
    if (!host.fs.isFile(DOCKER_EXE))
      return {
        stdout: '',
        stderr: "docker : The term 'docker' is not recognized as the name of a cmdlet, function, script file, or operable program.\r\n",
        exitCode: 1,
      };
    const [verb, ...rest] = argv;
    if (verb === 'version' && !host.isRunning('docker')) {
      return { stdout: `Client:\r\n Version:           ${host.state.docker?.version}\r\n`, stderr: NOT_RUNNING, exitCode: 1 };
    }
    if (!host.isRunning('docker')) return { stdout: '', stderr: NOT_RUNNING, exitCode: 1 };
    const server = host.state.docker?.version ?? '';
    switch (verb) {
      case 'version': {
        const format = rest[rest.indexOf('--format') + 1] ?? rest[rest.indexOf('-f') + 1];
        if (format === '{{.Server.Version}}') return { stdout: `${server}\r\n`, exitCode: 0 };
        if (format === '{{.Client.Version}}') return { stdout: `${server}\r\n`, exitCode: 0 };
        return {
          stdout: `Client:\r\n Version:           ${server}\r\n\r\nServer:\r\n Engine:\r\n  Version:          ${server}\r\n`,
          exitCode: 0,
        };
      }
      case 'network':
        return network(host, rest);
      case 'pull':
        return rest[0] ? pull(host, rest[0]) : { stdout: '', stderr: '"docker pull" requires exactly 1 argument.\r\n', exitCode: 1 };
      case 'images':
        return { stdout: host.state.images.map((i) => `${i}\r\n`).join(''), exitCode: 0 };
      case 'image':
        if (rest[0] === 'inspect' && rest[1]) {
          return host.state.images.includes(rest[1])
            ? { stdout: `[{"RepoTags":["${rest[1]}"]}]\r\n`, exitCode: 0 }
            : { stdout: '[]\r\n', stderr: `Error: No such image: ${rest[1]}\r\n`, exitCode: 1 };
        }
        break;
      case 'run': {
        const image = rest.filter((a, i) => !a.startsWith('-') && !['-v', '--volume'].includes(rest[i - 1] ?? '')).at(0);
        const volume = rest[rest.findIndex((a) => a === '-v' || a === '--volume') + 1];
        if (!image || !rest.includes('--rm') || !volume) break;
        if (!host.state.images.includes(image)) {
          const pulled = pull(host, image);
          if (pulled.exitCode !== 0) return pulled;
        }
        const hostDir = volume.replace(/:C:\\artifacts\\?$/i, '');
        extract(host, image, hostDir);
        return { stdout: 'Artifacts copied.\r\n', exitCode: 0 };
      }
    }
    return {
      stdout: '',
      stderr: `groundcrew sim: docker ${argv.join(' ')} is outside the simulated subset (docs/simulator.md)\r\n`,
      exitCode: 1,
    };
  },
};
