// A simulated Windows Server compute node: the state the roles touch and the rules Windows enforces on it.

import { createHash } from 'node:crypto';
import type { SimNetwork } from '../network.js';
import { kubeletStartProblem } from './kubelet-sim.js';
import { WindowsFs, type WindowsFsState } from './windows-fs.js';

export type FeatureState = 'Installed' | 'Available' | 'InstallPending';
export type StartType = 'Automatic' | 'Manual' | 'Disabled';

export interface ServiceState {
  name: string;
  displayName: string;
  status: 'Running' | 'Stopped';
  startType: StartType;
  binaryPath: string;
  dependsOn: string[];
  /** The MSI that registered it, if any (uninstalling removes it). */
  product?: string;
  /** What `sc.exe failure` set: the reset period and actions in sc's own syntax (restart/10000/...). */
  failure?: { resetSeconds: number; actions: string };
}

export interface HnsNetwork {
  name: string;
  type: string;
  id: string;
  subnets?: { addressPrefix: string; gatewayAddress: string }[];
  /** Transparent networks: the physical adapter they bind. */
  adapter?: string;
}

export interface NetRoute {
  destinationPrefix: string;
  nextHop: string;
  interfaceAlias: string;
}

export interface PortProxy {
  listenAddress: string;
  listenPort: number;
  connectAddress: string;
  connectPort: number;
}

export interface InstalledProduct {
  productCode: string;
  name: string;
  version: string;
  msiFile: string;
}

/** What an MSI file in the sim holds: enough to know what installing it does. */
export interface MsiPackage {
  msi: 'groundcrew-sim';
  product: 'vrouter' | 'utils' | 'agent' | 'cnm-plugin';
  name: string;
  version: string;
  /** vRouter only: a production-signed driver needs no test signing. */
  signed?: boolean;
  /** vRouter only, test-signed builds: the certificate Windows must trust to load the driver. */
  signerThumbprint?: string;
}

export interface WindowsFaults {
  /** MSI file names (e.g. vRouter.msi) whose install fails with 1603. */
  failMsi?: string[];
  /** The next N msiexec runs find another install in progress (1618). */
  busyMsi?: number;
  /** Contrail versions whose vRouter.msi fails with 1603: a bad build. */
  failVersions?: string[];
  /** MSI file names whose install succeeds but asks for a reboot (3010). */
  rebootMsi?: string[];
}

export interface SimCatalog {
  /** Contrail image tags the simulated registry serves. */
  contrailVersions: string[];
  /** Docker versions DockerMsftProvider offers. */
  dockerVersions: string[];
  /** Whether the vRouter builds this host pulls are production-signed (WINDOWS_USE_SIGNED_VROUTER). */
  signedVrouter: boolean;
}

export interface WindowsState {
  os: 'windows';
  hostname: string;
  bootCount: number;
  lastBootUpTime: string;
  features: Record<string, FeatureState>;
  services: Record<string, ServiceState>;
  products: Record<string, InstalledProduct>;
  certStores: { Root: Record<string, string>; TrustedPublisher: Record<string, string> };
  bcdTestSigning: boolean;
  activeTestSigning: boolean;
  pending: { cbs: boolean; fileRename: boolean };
  docker?: { version: string };
  images: string[];
  hnsNetworks: HnsNetwork[];
  /** The IPv4 route table (New-NetRoute writes both stores: the routes outlive a reboot). */
  routes: NetRoute[];
  /** Addresses added with New-NetIPAddress (the adapters' own addresses are not modelled). */
  ipAddresses: { interfaceAlias: string; ipAddress: string; prefixLength: number }[];
  portProxies: PortProxy[];
  /** Registry values the roles set, by lower-case key path (HKLM:\...). */
  registry: Record<string, Record<string, unknown>>;
  netNats: string[];
  fs: WindowsFsState;
  catalog: SimCatalog;
  faults: WindowsFaults;
  /** Every state-changing operation, in order: the host's own record of what was done to it. */
  journal: string[];
  /** Set while the host is rebooting: unreachable until this time (ms since the epoch), then it boots. */
  downUntil?: number;
}

export const VROUTER_EXTENSION = 'vRouter forwarding extension';
export const VHOST_ADAPTER = 'vEthernet (HNSTransparent)';
export const AGENT_PORT = 9091;
const SERVICE_DIR = 'C:\\Program Files\\Juniper Networks';

export const DEFAULT_CATALOG: SimCatalog = {
  contrailVersions: ['5.0.0', '5.0.1', '5.0.2', '5.1.0', 'latest'],
  dockerVersions: ['17.06', '18.09', '19.03'],
  signedVrouter: false,
};

export function productCode(name: string, version: string): string {
  const h = createHash('sha1').update(`${name}@${version}`).digest('hex').toUpperCase();
  return `{${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}}`;
}

export function thumbprintOf(content: string): string {
  return createHash('sha1').update(content).digest('hex').toUpperCase();
}

export interface FreshWindowsOptions {
  hostname: string;
  /** Features already installed (a host prepared by hand). */
  features?: string[];
  /** containerd installed as a service (a Kubernetes worker's runtime; groundcrew does not install it). */
  containerd?: boolean;
  catalog?: Partial<SimCatalog>;
  now?: Date;
}

export class WindowsHost {
  readonly fs: WindowsFs;
  /** The cluster network this host can reach (set by whoever runs the simulation; not part of its state). */
  network: SimNetwork | undefined;
  /** Set by Restart-Computer; the transport reboots the host once the command's answer is out. */
  rebootRequested = false;

  constructor(readonly state: WindowsState) {
    this.fs = new WindowsFs(state.fs);
    // States saved before the routing model existed load with its defaults.
    state.routes ??= [];
    state.ipAddresses ??= [];
    state.portProxies ??= [];
    state.registry ??= { [TCPIP_PARAMETERS]: { Hostname: state.hostname, IPEnableRouter: 0 } };
  }

  static fresh(options: FreshWindowsOptions): WindowsHost {
    const host = WindowsHost.#fresh(options);
    if (options.containerd) host.fs.put(CONTAINERD_EXE, 'containerd.exe');
    return host;
  }

  static #fresh(options: FreshWindowsOptions): WindowsHost {
    const features: Record<string, FeatureState> = { Containers: 'Available', 'Hyper-V': 'Available', 'Hyper-V-PowerShell': 'Available' };
    for (const f of options.features ?? []) features[f] = 'Installed';
    const service = (name: string, displayName: string, startType: StartType): ServiceState => ({
      name,
      displayName,
      status: startType === 'Automatic' ? 'Running' : 'Stopped',
      startType,
      binaryPath: `C:\\Windows\\System32\\svchost.exe -k ${name}`,
      dependsOn: [],
    });
    return new WindowsHost({
      os: 'windows',
      hostname: options.hostname,
      bootCount: 1,
      lastBootUpTime: (options.now ?? new Date()).toISOString(),
      features,
      services: {
        winnat: service('winnat', 'Windows NAT Driver', 'Automatic'),
        winrm: service('WinRM', 'Windows Remote Management (WS-Management)', 'Automatic'),
        sshd: service('sshd', 'OpenSSH SSH Server', 'Automatic'),
        iphlpsvc: service('iphlpsvc', 'IP Helper', 'Automatic'),
        // Routing and Remote Access is disabled on a fresh Windows Server.
        remoteaccess: service('RemoteAccess', 'Routing and Remote Access', 'Disabled'),
        ...(options.containerd
          ? {
              containerd: {
                ...service('containerd', 'containerd container runtime', 'Automatic'),
                status: features.Containers === 'Installed' ? ('Running' as const) : ('Stopped' as const),
                binaryPath: `"${CONTAINERD_EXE}" --run-service`,
              },
            }
          : {}),
      },
      products: {},
      certStores: { Root: {}, TrustedPublisher: {} },
      bcdTestSigning: false,
      activeTestSigning: false,
      pending: { cbs: false, fileRename: false },
      images: [],
      hnsNetworks: [],
      netNats: [],
      routes: [
        { destinationPrefix: '127.0.0.0/8', nextHop: '0.0.0.0', interfaceAlias: 'Loopback Pseudo-Interface 1' },
        { destinationPrefix: '255.255.255.255/32', nextHop: '0.0.0.0', interfaceAlias: 'Ethernet0' },
      ],
      ipAddresses: [],
      portProxies: [],
      registry: { [TCPIP_PARAMETERS]: { Hostname: options.hostname, IPEnableRouter: 0 } },
      fs: WindowsFs.empty(),
      catalog: { ...DEFAULT_CATALOG, ...options.catalog },
      faults: {},
      journal: [],
    });
  }

  record(change: string): void {
    this.state.journal.push(change);
  }

  /** A running service's executable: Windows refuses to write, move onto or delete it. */
  inUse(path: string): string | undefined {
    const running = Object.values(this.state.services).find(
      (s) => s.status === 'Running' && executableOf(s).toLowerCase() === path.toLowerCase(),
    );
    return running ? `The process cannot access the file '${path}' because it is being used by another process.` : undefined;
  }

  /** [IO.File]::WriteAllText */
  writeText(path: string, text: string): string | undefined {
    return this.writeBytes(path, Buffer.from(text, 'utf8'));
  }

  /** [IO.File]::WriteAllBytes: binary content is kept as latin1 text, so hashes see the original bytes. */
  writeBytes(path: string, bytes: Buffer): string | undefined {
    const locked = this.inUse(path);
    if (locked) return locked;
    const content = bytes.toString('latin1');
    if (this.fs.read(path) === content) return undefined;
    if (!this.fs.write(path, content)) return `Could not find a part of the path '${path}'.`;
    this.record(`write ${path}`);
    return undefined;
  }

  service(name: string): ServiceState | undefined {
    return this.state.services[name.toLowerCase()];
  }

  // ---- derived facts ----

  isRunning(name: string): boolean {
    return this.service(name)?.status === 'Running';
  }

  productOf(kind: MsiPackage['product']): InstalledProduct | undefined {
    const name = PRODUCT_NAMES[kind];
    return Object.values(this.state.products).find((p) => p.name === name);
  }

  /** The transparent switch exists while the docker driver runs (it creates it). */
  switchExists(): boolean {
    return this.isRunning('contrail-cnm-plugin') && this.isRunning('docker');
  }

  extensionRunning(): boolean {
    return this.productOf('vrouter') !== undefined && this.switchExists();
  }

  pipes(): string[] {
    const pipes: string[] = [];
    if (this.isRunning('docker')) pipes.push('docker_engine');
    if (this.isRunning('containerd')) pipes.push('containerd-containerd');
    if (this.switchExists()) pipes.push('Contrail');
    if (this.extensionRunning()) pipes.push('ksync');
    if (this.extensionRunning() && this.isRunning('contrail-vrouter-agent')) pipes.push('pkt0');
    return pipes;
  }

  adapters(): { name: string; status: 'Up'; ifIndex: number }[] {
    const adapters = [
      { name: 'Ethernet0', status: 'Up' as const, ifIndex: 4 },
      { name: 'Ethernet1', status: 'Up' as const, ifIndex: 5 },
    ];
    if (this.switchExists()) adapters.push({ name: VHOST_ADAPTER, status: 'Up', ifIndex: 12 });
    // A transparent network gives the host a vNIC of its own on the network's switch.
    for (const [i, n] of this.state.hnsNetworks.entries())
      if (n.type === 'Transparent') adapters.push({ name: `vEthernet (${n.name})`, status: 'Up', ifIndex: 20 + i });
    return adapters;
  }

  /** Interfaces routes may use: the adapters and the loopback. */
  interfaceExists(alias: string): boolean {
    return alias === 'Loopback Pseudo-Interface 1' || this.adapters().some((a) => a.name.toLowerCase() === alias.toLowerCase());
  }

  /** An interface went away (its network was removed): Windows drops its addresses and routes with it. */
  dropInterface(alias: string): void {
    this.state.ipAddresses = this.state.ipAddresses.filter((a) => a.interfaceAlias !== alias);
    this.state.routes = this.state.routes.filter((r) => r.interfaceAlias !== alias);
  }

  listeningPorts(): number[] {
    return this.extensionRunning() && this.isRunning('contrail-vrouter-agent') ? [AGENT_PORT] : [];
  }

  systemStartOptions(): string {
    return this.state.activeTestSigning ? ' TESTSIGNING  NOEXECUTE=OPTOUT' : ' NOEXECUTE=OPTOUT';
  }

  // ---- services ----

  /** Starts a service and what it depends on; undefined on success, else the reason Windows gives. */
  startService(name: string): string | undefined {
    const svc = this.service(name);
    if (!svc) return `Cannot find any service with service name '${name}'.`;
    if (svc.status === 'Running') return undefined;
    if (svc.startType === 'Disabled')
      return `Service '${svc.displayName} (${svc.name})' cannot be started due to the following error: Cannot start service ${svc.name} on computer '.'. The service cannot be started, either because it is disabled or because it has no enabled devices associated with it.`;
    for (const dependency of svc.dependsOn) {
      const failed = this.startService(dependency);
      if (failed)
        return `Service '${svc.displayName} (${svc.name})' cannot be started due to the following error: Cannot start service ${svc.name} on computer '.'. The dependency service or group failed to start.`;
    }
    const problem = this.startProblem(svc);
    if (problem)
      return `Service '${svc.displayName} (${svc.name})' cannot be started due to the following error: Cannot start service ${svc.name} on computer '.'. ${problem}`;
    svc.status = 'Running';
    this.record(`start-service ${svc.name}`);
    if (svc.name.toLowerCase() === 'docker') this.onDockerStarted();
    return undefined;
  }

  private startProblem(svc: ServiceState): string | undefined {
    const exe = executableOf(svc);
    if (!/svchost\.exe/i.test(exe) && !this.fs.isFile(exe)) return 'The system cannot find the file specified.';
    switch (svc.name.toLowerCase()) {
      case 'containerd':
        return this.state.features.Containers === 'Installed' ? undefined : 'The Containers feature is not enabled.';
      case 'kubelet':
        return kubeletStartProblem(this, svc);
      case 'docker':
        return this.state.features.Containers === 'Installed'
          ? undefined
          : 'The Containers feature is not enabled (hcsshim::GetComputeSystems: the service has not been started).';
      case 'contrail-cnm-plugin':
        if (!this.productOf('vrouter')) return 'The vRouter forwarding extension is not installed.';
        return this.fs.isFile(CNM_CONFIG) ? undefined : `Configuration file ${CNM_CONFIG} not found.`;
      case 'contrail-vrouter-agent':
        if (!this.fs.isFile(AGENT_CONFIG)) return `Configuration file ${AGENT_CONFIG} not found.`;
        return this.switchExists() ? undefined : `The vhost adapter '${VHOST_ADAPTER}' does not exist: start contrail-cnm-plugin first.`;
      default:
        return undefined;
    }
  }

  /** Stops a service; with dependents running, only with force (which stops them too). */
  stopService(name: string, force: boolean): string | undefined {
    const svc = this.service(name);
    if (!svc) return `Cannot find any service with service name '${name}'.`;
    const dependents = Object.values(this.state.services).filter(
      (s) => s.status === 'Running' && s.dependsOn.some((d) => d.toLowerCase() === svc.name.toLowerCase()),
    );
    if (dependents.length > 0 && !force)
      return `Cannot stop service '${svc.displayName} (${svc.name})' because it has dependent services. It can only be stopped if the Force flag is set.`;
    for (const d of dependents) this.stopService(d.name, true);
    if (svc.status === 'Running') {
      svc.status = 'Stopped';
      this.record(`stop-service ${svc.name}`);
    }
    return undefined;
  }

  private onDockerStarted(): void {
    const daemon = this.fs.read(DOCKER_DAEMON_JSON);
    let bridgeNone = false;
    try {
      bridgeNone = daemon !== undefined && JSON.parse(daemon).bridge === 'none';
    } catch {
      bridgeNone = false;
    }
    // Docker on Windows makes its default "nat" network (and a WinNAT instance) unless told bridge none.
    if (!bridgeNone && !this.state.hnsNetworks.some((n) => n.name === 'nat')) {
      this.state.hnsNetworks.push({ name: 'nat', type: 'NAT', id: productCode('nat', String(this.state.bootCount)).slice(1, -1) });
      if (this.isRunning('winnat') && !this.state.netNats.includes('nat')) this.state.netNats.push('nat');
    }
  }

  // ---- reboot ----

  /** What a reboot does to a Windows host: pending work lands, test signing takes effect, services start. */
  reboot(now = new Date()): void {
    this.state.bootCount += 1;
    const last = Date.parse(this.state.lastBootUpTime);
    this.state.lastBootUpTime = new Date(Math.max(now.getTime(), last + 1000)).toISOString();
    for (const [name, state] of Object.entries(this.state.features))
      if (state === 'InstallPending') this.state.features[name] = 'Installed';
    this.state.activeTestSigning = this.state.bcdTestSigning;
    this.state.pending = { cbs: false, fileRename: false };
    for (const svc of Object.values(this.state.services)) svc.status = 'Stopped';
    for (const svc of Object.values(this.state.services)) {
      if (svc.startType === 'Automatic') this.startService(svc.name);
    }
    this.record(`reboot ${this.state.bootCount}`);
  }
}

/** The executable a service runs: its binary path without arguments. */
export function executableOf(svc: ServiceState): string {
  return svc.binaryPath.replace(/^"([^"]+)".*$/, '$1').replace(/\.exe\s.*$/i, '.exe');
}

export const TCPIP_PARAMETERS = 'hklm:\\system\\currentcontrolset\\services\\tcpip\\parameters';
export const CONTAINERD_EXE = 'C:\\Program Files\\containerd\\containerd.exe';

export const PRODUCT_NAMES: Record<MsiPackage['product'], string> = {
  vrouter: 'Contrail vRouter',
  utils: 'Contrail vRouter Utilities',
  agent: 'Contrail vRouter Agent',
  'cnm-plugin': 'Contrail Docker Driver',
};

export const CONTRAIL_DATA = 'C:\\ProgramData\\Contrail';
export const CNM_CONFIG = `${CONTRAIL_DATA}\\etc\\contrail\\contrail-cnm-plugin.conf`;
export const AGENT_CONFIG = `${CONTRAIL_DATA}\\etc\\contrail\\contrail-vrouter-agent.conf`;
export const DOCKER_DAEMON_JSON = 'C:\\ProgramData\\docker\\config\\daemon.json';
export const DOCKER_EXE = 'C:\\Program Files\\Docker\\docker.exe';
export const DOCKERD_EXE = 'C:\\Program Files\\Docker\\dockerd.exe';
export const VIF_EXE = `${SERVICE_DIR}\\vrouter\\vif.exe`;
export { SERVICE_DIR };
