// A simulated Linux compute or controller: what cannot run on this machine (Docker engine, systemd, reboot).

import { randomUUID } from 'node:crypto';
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
  journal: string[];
}

export const DEFAULT_LINUX_CATALOG: LinuxCatalog = {
  contrailVersions: ['5.0.0', '5.0.1', '5.0.2', '5.1.0', 'latest'],
  openstackReleases: ['ocata', 'queens', 'rocky'],
};

/** Interfaces the vRouter agent container brings up on its host. */
export const AGENT_INTERFACES = ['vhost0', 'pkt0'];

export const DEFAULT_SYSCTLS: Record<string, string> = {
  'net.ipv4.ip_forward': '0',
  'net.ipv4.conf.all.rp_filter': '1',
  'net.ipv4.conf.default.rp_filter': '1',
  'net.core.rmem_max': '212992',
  'net.core.wmem_max': '212992',
  'vm.max_map_count': '65530',
  'kernel.core_pattern': 'core',
};

export class LinuxHost {
  readonly fs: PosixFs;
  /** Set by `reboot`; the transport reboots the host once the command's answer is out. */
  rebootRequested = false;

  constructor(readonly state: LinuxState) {
    this.fs = new PosixFs(state.fs);
  }

  static fresh(hostname: string, catalog: Partial<LinuxCatalog> = {}): LinuxHost {
    return new LinuxHost({
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
    this.record(`reboot ${this.state.bootCount}`);
  }
}
