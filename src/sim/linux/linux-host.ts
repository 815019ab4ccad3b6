// A simulated Linux compute or controller: what cannot run on this machine (Docker engine, systemd, reboot).

import { randomUUID } from 'node:crypto';
import type { HttpEndpoint, HttpRequest, HttpResponse, SimNetwork } from '../network.js';
import type { SimRoute } from './ip-routes.js';
import { PosixFs, type PosixFsState } from './posix-fs.js';

export interface ContainerState {
  name: string;
  image: string;
  state: 'running' | 'exited';
  project?: string;
  service?: string;
  restart?: string;
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
  composeVersion: string;
  images: string[];
  containers: Record<string, ContainerState>;
  units: Record<string, { active: boolean; enabled: boolean }>;
  /** Kernel parameters (a net.* one is per network namespace on a real host). */
  sysctls: Record<string, string>;
  /** Files of the in-process simulator; lab hosts have a real file system instead. */
  fs: PosixFsState;
  catalog: LinuxCatalog;
  /** Objects the simulated Contrail config API holds (a controller deployed outside groundcrew). */
  configApi?: { virtualRouters: Record<string, { ip: string }> };
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

const json = (status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export class LinuxHost implements HttpEndpoint {
  readonly fs: PosixFs;
  /** Set by `reboot`; the transport reboots the host once the command's answer is out. */
  rebootRequested = false;
  /** The cluster network this host can reach (set by whoever runs the simulation; not part of its state). */
  network: SimNetwork | undefined;

  constructor(readonly state: LinuxState) {
    this.fs = new PosixFs(state.fs);
    // States saved before links and routes were modelled load without them.
    state.links ??= {};
    state.routes ??= [];
  }

  /** `configApi`: this host also runs a Contrail config API (a controller deployed outside groundcrew). */
  static fresh(hostname: string, catalog: Partial<LinuxCatalog> = {}, options: { configApi?: boolean } = {}): LinuxHost {
    return new LinuxHost({
      ...(options.configApi ? { configApi: { virtualRouters: {} } } : {}),
      os: 'linux',
      hostname,
      bootId: randomUUID(),
      bootCount: 1,
      dockerVersion: '20.10.24',
      composeVersion: '2.20.2',
      images: [],
      containers: {},
      units: { docker: { active: true, enabled: true }, containerd: { active: true, enabled: true } },
      sysctls: { ...DEFAULT_SYSCTLS },
      fs: PosixFs.initial(),
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

  /** Interfaces that exist because a container made them (the vRouter agent makes vhost0 and pkt0). */
  interfaces(): string[] {
    const agentUp = Object.values(this.state.containers).some((c) => c.state === 'running' && /contrail-vrouter-agent:/.test(c.image));
    return agentUp ? AGENT_INTERFACES : [];
  }

  #running(image: RegExp): ContainerState | undefined {
    return Object.values(this.state.containers).find((c) => c.state === 'running' && image.test(c.image));
  }

  /** Keystone (port 5000) while its container runs; the config API (8082) on a controller that has one. */
  serve(port: number, request: HttpRequest): HttpResponse | undefined {
    if (port === 5000) {
      const keystone = this.#running(/keystone:/);
      if (!keystone) return undefined;
      if (request.method !== 'POST' || request.path !== '/v3/auth/tokens') return json(404, { error: { code: 404, message: 'Not Found' } });
      let body: { auth?: { identity?: { password?: { user?: { name?: string; password?: string } } } } };
      try {
        body = JSON.parse(request.body) as typeof body;
      } catch {
        return json(400, { error: { code: 400, message: 'Malformed request body' } });
      }
      const user = body.auth?.identity?.password?.user;
      const wanted = keystone.env?.KEYSTONE_ADMIN_PASSWORD;
      if (user?.name !== 'admin' || wanted === undefined || user.password !== wanted) {
        return json(401, { error: { code: 401, message: 'The request you have made requires authentication.', title: 'Unauthorized' } });
      }
      return json(
        201,
        { token: { methods: ['password'], user: { name: 'admin' } } },
        { 'x-subject-token': `gAAAA${this.state.bootId.slice(0, 8)}` },
      );
    }
    if (port === 8082 && this.state.configApi) {
      const match = /^\/virtual-routers\/?$/.exec(request.path);
      if (!match || request.method !== 'POST') return json(404, { error: 'not found' });
      const vr = (JSON.parse(request.body || '{}') as { 'virtual-router'?: { fq_name?: string[]; virtual_router_ip_address?: string } })[
        'virtual-router'
      ];
      const name = vr?.fq_name?.at(-1);
      if (!name || !vr?.virtual_router_ip_address)
        return json(400, { error: 'virtual-router needs fq_name and virtual_router_ip_address' });
      if (name in this.state.configApi.virtualRouters) return json(409, { error: `virtual-router ${name} already exists` });
      this.state.configApi.virtualRouters[name] = { ip: vr.virtual_router_ip_address };
      this.record(`config-api create virtual-router ${name}`);
      return json(200, { 'virtual-router': { fq_name: ['default-global-system-config', name] } });
    }
    return undefined;
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
      c.state = c.restart === 'always' || c.restart === 'unless-stopped' ? 'running' : 'exited';
    }
    for (const unit of Object.values(this.state.units)) unit.active = unit.enabled;
    // Runtime sysctls are lost; what /etc/sysctl.d and /etc/sysctl.conf say is applied at boot.
    this.state.sysctls = { ...DEFAULT_SYSCTLS, ...this.persistentSysctls() };
    this.state.links = {};
    this.state.routes = [];
    this.record(`reboot ${this.state.bootCount}`);
  }
}
