// Simulated hosts by name, on one simulated network. With a directory, each host's state is kept there
// (saved after every command by whoever runs it), so the hosts outlive the process that drives them, as
// real hosts outlive a daemon.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FreshLinuxOptions, LinuxHost, type LinuxState } from './linux/linux-host.js';
import { SimNetwork } from './network.js';
import { WindowsHost } from './windows/windows-host.js';
import type { NicState, WindowsState } from './windows/windows-state.js';

export type SimHost = LinuxHost | WindowsHost;

/** What a host is made as the first time it is asked for; afterwards its saved state says what it is. */
/** What the simulated world publishes for a host to pull: registries it reaches and Contrail image tags they serve. */
export interface Publishes {
  registries: string[];
  contrailVersions: string[];
}

export interface HostDescription {
  name: string;
  os: 'linux' | 'windows';
  /** Where the other hosts reach it on the simulated network. */
  address: string;
  /** Published beside the simulator's default catalog (a rehearsal of a real inventory: its registry, its pins). */
  publishes?: Publishes;
  /** Linux: its distribution, and the external controller it stands for (Keystone, the config API). */
  linux?: FreshLinuxOptions;
  windows?: {
    /** The vRouter builds it pulls are production-signed. */
    signedVrouter?: boolean;
    /** Features already installed (a host prepared by hand). */
    features?: string[];
    /** containerd installed as a service when the host was provisioned. */
    containerd?: boolean;
    /** Its network adapters, the management one first; Ethernet0 (static, `address`) and Ethernet1 (DHCP) when unset. */
    nics?: NicState[];
  };
}

function freshHost(description: HostDescription): SimHost {
  if (description.os === 'windows') {
    const windows = description.windows ?? {};
    return publish(
      WindowsHost.fresh({
        hostname: description.name,
        managementAddress: description.address,
        catalog: { signedVrouter: windows.signedVrouter ?? false },
        ...(windows.features ? { features: windows.features } : {}),
        containerd: windows.containerd ?? false,
        ...(windows.nics ? { nics: windows.nics } : {}),
      }),
      description.publishes,
    );
  }
  return publish(LinuxHost.fresh(description.name, {}, description.linux ?? {}), description.publishes);
}

/** Adds what the world publishes to a host's catalog (the catalog only grows: a pin reverted still exists upstream). */
export function publish<H extends SimHost>(host: H, publishes: Publishes | undefined): H {
  if (!publishes) return host;
  // New arrays, never pushed into: a fresh host's catalog shares its lists with the simulator's default catalog.
  const union = (list: string[], more: string[]) => [...new Set([...list, ...more])];
  host.state.catalog.contrailVersions = union(host.state.catalog.contrailVersions, publishes.contrailVersions);
  if (host instanceof WindowsHost) host.state.catalog.registries = union(host.state.catalog.registries, publishes.registries);
  return host;
}

export class SimHosts {
  readonly network = new SimNetwork();
  readonly #hosts = new Map<string, SimHost>();

  /** `dir`: where host states live; none keeps them in memory. */
  constructor(private readonly dir?: string) {
    if (dir) mkdirSync(dir, { recursive: true });
  }

  /** The host of that name: as saved in the directory if it is there, else fresh from its description. */
  host(description: HostDescription): SimHost {
    const existing = this.#hosts.get(description.name);
    if (existing) return existing;
    const file = this.#file(description.name);
    let host: SimHost;
    if (file && existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as LinuxState | WindowsState;
      host = saved.os === 'windows' ? new WindowsHost(saved) : new LinuxHost(saved);
    } else host = freshHost(description);
    host.network = this.network;
    if (host instanceof LinuxHost) this.network.attach(description.address, host);
    this.#hosts.set(description.name, host);
    this.save(description.name);
    return host;
  }

  /** Writes a host's state to the directory (atomically: a reader never sees half a file); nothing without one. */
  save(name: string): void {
    const file = this.#file(name);
    const host = this.#hosts.get(name);
    if (!file || !host) return;
    writeFileSync(`${file}.tmp-${process.pid}`, JSON.stringify(host.state));
    renameSync(`${file}.tmp-${process.pid}`, file);
  }

  #file(name: string): string | undefined {
    return this.dir ? join(this.dir, `${name}.json`) : undefined;
  }
}
