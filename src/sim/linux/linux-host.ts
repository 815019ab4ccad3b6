// A simulated Linux compute or controller: what cannot run on this machine (Docker engine, systemd, reboot).

import { randomUUID } from 'node:crypto';
import { type CommandResult, fail, ok } from '../command-result.js';
import type { HttpEndpoint, HttpRequest, HttpResponse, SimNetwork } from '../network.js';
import type { HostKernel } from './contrail-containers.js';
import { type ControllerState, passwordDigest, serveController } from './controller-services.js';
import type { SimRoute } from './ip-routes.js';
import { LINUX_PROFILES, type LinuxProfile } from './linux-profiles.js';
import { PosixFs, type PosixFsState } from './posix-fs.js';

export interface ContainerState {
  name: string;
  image: string;
  /** `restarting`: its entrypoint failed and its restart policy keeps starting it again. */
  state: 'running' | 'exited' | 'restarting';
  exitCode?: number;
  project?: string;
  service?: string;
  restart?: string;
  privileged?: boolean;
  networkMode?: string;
  /** Short-syntax volumes it was started with (`host:container`). */
  volumes?: string[];
  /** A digest of what the container was created from, so `compose up` recreates only what changed. */
  config: string;
  /** Its environment (from env_file and environment), which the simulated services read. */
  env?: Record<string, string>;
}

export interface LinuxCatalog {
  contrailVersions: string[];
  openstackReleases: string[];
}

export interface LinuxState {
  os: 'linux';
  hostname: string;
  bootId: string;
  bootCount: number;
  dockerVersion: string;
  /** The Compose v2 plugin's version; absent, docker refuses `compose`. */
  composeVersion?: string;
  /** The standalone docker-compose (v1) binary's version; absent, the command is not found. */
  composeV1Version?: string;
  /** Kernel modules installed under /lib/modules by containers (kernel-init's vrouter.ko): kept across reboots. */
  kernelModules?: string[];
  images: string[];
  containers: Record<string, ContainerState>;
  units: Record<string, { active: boolean; enabled: boolean }>;
  /** Kernel parameters (a net.* one is per network namespace on a real host). */
  sysctls: Record<string, string>;
  /** Files of the in-process simulator; lab hosts have a real file system instead. */
  fs: PosixFsState;
  catalog: LinuxCatalog;
  /** The external controller this host stands for (Keystone, the config API): deployed outside groundcrew. */
  controller?: ControllerState;
  /** Bridges made with `ip link add` and their addresses; the main routing table. Both lost at reboot. */
  links: Record<string, { up: boolean; addrs: string[] }>;
  routes: SimRoute[];
  journal: string[];
  /** Set while the host is rebooting: unreachable until this time (ms since the epoch), then it boots. */
  downUntil?: number;
}

const DEFAULT_LINUX_CATALOG: LinuxCatalog = {
  contrailVersions: ['5.0.0', '5.0.1', '5.0.2', '5.1.0', 'latest'],
  openstackReleases: ['ocata', 'queens', 'rocky'],
};

/** Interfaces the vRouter agent container brings up on its host. */
const AGENT_INTERFACES = ['vhost0', 'pkt0'];

const DEFAULT_SYSCTLS: Record<string, string> = {
  'net.ipv4.ip_forward': '0',
  'net.ipv4.conf.all.rp_filter': '1',
  'net.ipv4.conf.default.rp_filter': '1',
  'net.core.rmem_max': '212992',
  'net.core.wmem_max': '212992',
  'vm.max_map_count': '65530',
  'kernel.core_pattern': 'core',
};

export interface FreshLinuxOptions {
  /** Which distribution (its Docker and Compose); default ubuntu-20.04. */
  profile?: LinuxProfile;
  /** The host also runs a Contrail config API (a controller deployed outside groundcrew). */
  configApi?: boolean;
  /** The host also runs Keystone as kolla-ansible deployed it, with this admin user and password. */
  keystone?: { user?: string; password: string };
}

export class LinuxHost implements HttpEndpoint {
  readonly fs: PosixFs;
  /** Set by `reboot`; the transport reboots the host once the command's answer is out. */
  rebootRequested = false;
  /** The cluster network this host can reach (set by whoever runs the simulation; not part of its state). */
  network: SimNetwork | undefined;

  constructor(readonly state: LinuxState) {
    this.fs = new PosixFs(state.fs);
    // States saved before links, routes, modules, os-release and the controller were modelled load without them.
    state.links ??= {};
    state.routes ??= [];
    state.kernelModules ??= [];
    if (!this.fs.isFile('/etc/os-release')) this.fs.write('/etc/os-release', LINUX_PROFILES['ubuntu-20.04'].osRelease, 0o644);
    const legacy = state as LinuxState & { configApi?: ControllerState['configApi'] };
    if (legacy.configApi) {
      state.controller = { ...state.controller, configApi: legacy.configApi };
      delete legacy.configApi;
    }
  }

  static fresh(hostname: string, catalog: Partial<LinuxCatalog> = {}, options: FreshLinuxOptions = {}): LinuxHost {
    const profile = LINUX_PROFILES[options.profile ?? 'ubuntu-20.04'];
    const controller: ControllerState = {
      ...(options.configApi ? { configApi: { virtualRouters: {} } } : {}),
      ...(options.keystone
        ? { keystone: { user: options.keystone.user ?? 'admin', passwordSha256: passwordDigest(options.keystone.password) } }
        : {}),
    };
    const fs = PosixFs.initial();
    fs.files['/etc/os-release'] = { content: profile.osRelease, mode: 0o644 };
    return new LinuxHost({
      ...(Object.keys(controller).length > 0 ? { controller } : {}),
      os: 'linux',
      hostname,
      bootId: randomUUID(),
      bootCount: 1,
      dockerVersion: profile.dockerVersion,
      ...(profile.composeVersion ? { composeVersion: profile.composeVersion } : {}),
      ...(profile.composeV1Version ? { composeV1Version: profile.composeV1Version } : {}),
      kernelModules: [],
      images: [],
      containers: {},
      units: { docker: { active: true, enabled: true }, containerd: { active: true, enabled: true } },
      sysctls: { ...DEFAULT_SYSCTLS },
      fs,
      catalog: { ...DEFAULT_LINUX_CATALOG, ...catalog },
      links: {},
      routes: [],
      journal: [],
    });
  }

  record(change: string): void {
    this.state.journal.push(change);
  }

  /** Whether an image reference exists in the simulated registry. */
  published(image: string): boolean {
    const at = image.lastIndexOf(':');
    const repo = at > image.lastIndexOf('/') ? image.slice(0, at) : image;
    const tag = at > image.lastIndexOf('/') ? image.slice(at + 1) : 'latest';
    const name = repo.split('/').pop() ?? '';
    if (name.startsWith('contrail-')) return this.state.catalog.contrailVersions.includes(tag);
    if (repo.includes('kolla/') || name.startsWith('centos-binary-') || name.startsWith('ubuntu-binary-'))
      return this.state.catalog.openstackReleases.includes(tag);
    return false;
  }

  /** The host's kernel as containers see it (kernel-init installs vrouter.ko under /lib/modules). */
  get kernel(): HostKernel {
    this.state.kernelModules ??= [];
    return { kernelModules: this.state.kernelModules, record: (change) => this.record(change) };
  }

  /** `docker pull`: only tags the catalog publishes exist. */
  pull(image: string): CommandResult {
    if (!this.published(image))
      return fail(`Error response from daemon: manifest for ${image} not found: manifest unknown: manifest unknown\n`);
    if (!this.state.images.includes(image)) {
      this.state.images.push(image);
      this.record(`docker-pull ${image}`);
    }
    return ok(`Status: Image is up to date for ${image}\n`);
  }

  /** Removes a compose project's containers whose service `which` picks. */
  removeContainers(project: string, which: (service: string) => boolean): void {
    for (const c of Object.values(this.state.containers)) {
      if (c.project === project && which(c.service ?? '')) {
        delete this.state.containers[c.name];
        this.record(`remove ${c.name}`);
      }
    }
  }

  /**
   * Interfaces that exist because a container made them: a running vRouter agent (it runs only once the
   * vrouter module is installed, privileged, on the host network) makes vhost0 and pkt0.
   */
  interfaces(): string[] {
    const agentUp = Object.values(this.state.containers).some((c) => c.state === 'running' && /contrail-vrouter-agent:/.test(c.image));
    return agentUp ? AGENT_INTERFACES : [];
  }

  /** The external controller's services, when the host stands for one (src/sim/linux/controller-services.ts). */
  serve(port: number, request: HttpRequest): HttpResponse | undefined {
    if (!this.state.controller) return undefined;
    return serveController(this.state.controller, port, request, {
      token: `gAAAA${this.state.bootId.slice(0, 8)}`,
      record: (change) => this.record(change),
    });
  }

  /** key = value lines of /etc/sysctl.d/*.conf (in name order) and /etc/sysctl.conf. */
  persistentSysctls(): Record<string, string> {
    const files = [
      ...this.fs
        .list('/etc/sysctl.d')
        .filter((f) => f.endsWith('.conf'))
        .map((f) => `/etc/sysctl.d/${f}`),
      '/etc/sysctl.conf',
    ];
    const out: Record<string, string> = {};
    for (const file of files) {
      for (const line of (this.fs.read(file) ?? '').split('\n')) {
        const m = /^\s*([\w.]+)\s*=\s*(.*?)\s*$/.exec(line);
        if (m?.[1] && !line.trim().startsWith('#')) out[m[1]] = m[2] ?? '';
      }
    }
    return out;
  }

  reboot(): void {
    this.state.bootCount += 1;
    this.state.bootId = randomUUID();
    for (const c of Object.values(this.state.containers)) {
      // An init container that ran to completion stays exited with its code; a restarting one keeps restarting.
      if (c.restart === 'always' || c.restart === 'unless-stopped') {
        if (c.state !== 'restarting') c.state = 'running';
      } else if (c.state === 'running') {
        c.state = 'exited';
        c.exitCode = 0;
      }
    }
    for (const unit of Object.values(this.state.units)) unit.active = unit.enabled;
    // Runtime sysctls are lost; what /etc/sysctl.d and /etc/sysctl.conf say is applied at boot.
    this.state.sysctls = { ...DEFAULT_SYSCTLS, ...this.persistentSysctls() };
    this.state.links = {};
    this.state.routes = [];
    this.record(`reboot ${this.state.bootCount}`);
  }
}
