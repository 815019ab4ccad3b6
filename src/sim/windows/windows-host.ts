// A simulated Windows Server compute node: its state (windows-state.ts), the facts derived from it, and what
// changes it (services follow service-rules.ts; a reboot lands pending work).

import type { CommandResult } from '../command-result.js';
import type { SimNetwork } from '../network.js';
import { installChocolatey } from './chocolatey.js';
import { productNames } from './msi-products.js';
import { startService, stopService } from './service-rules.js';
import { HYPERV_TOOLS, SERVER_FEATURES } from './windows-features.js';
import { WindowsFs } from './windows-fs.js';
import { AGENT_PORT, CNM_CONFIG, CONTAINERD_EXE, HNS_TRANSPARENT_VNIC, POWERSHELL_EXE, TCPIP_PARAMETERS } from './windows-paths.js';
import {
  DEFAULT_CATALOG,
  defaultNics,
  executableOf,
  type FeatureState,
  type FreshWindowsOptions,
  type HnsNetwork,
  type InstalledProduct,
  type MsiPackage,
  type NicState,
  type ServiceState,
  type StartType,
  type WindowsState,
} from './windows-state.js';

/** A fresh powershell.exe process's state (see WindowsHost.session). */
export const newSession = () => ({ modules: new Set<string>(), securityProtocol: 240 });

export class WindowsHost {
  readonly fs: WindowsFs;
  /** The cluster network this host can reach (set by whoever runs the simulation; not part of its state). */
  network: SimNetwork | undefined;
  /** Set by Restart-Computer; the transport reboots the host once the command's answer is out. */
  rebootRequested = false;
  /**
   * Set when the Contrail switch is made on the adapter that carries the node's own address (a single-NIC
   * host): the address moves to the vNIC and the SSH session of the command drops (c-a-d
   * contrail_cnm_windows: "Ansible might lose connectivity for a moment", then wait_for_connection).
   */
  connectionDropRequested = false;
  /**
   * How this host runs a program's command line, set by the shell that drives it: an NSSM service whose
   * Application is powershell.exe runs its script through it when it starts.
   */
  runProcess: ((commandLine: string) => CommandResult) | undefined;
  /**
   * What one powershell.exe process holds and loses when it ends: modules imported with Import-Module, and
   * [Net.ServicePointManager]::SecurityProtocol, Ssl3|Tls (240) as Windows PowerShell 5.1 starts without
   * SchUseStrongCrypto (why Chocolatey's install command sets Tls12 first: docs.chocolatey.org/en-us/choco/setup).
   */
  session = newSession();

  constructor(readonly state: WindowsState) {
    this.fs = new WindowsFs(state.fs);
    // States saved before the routing model existed load with its defaults.
    state.routes ??= [];
    state.ipAddresses ??= [];
    state.portProxies ??= [];
    state.registry ??= { [TCPIP_PARAMETERS]: { Hostname: state.hostname, IPEnableRouter: 0 } };
    // States saved before the builds, elevation and package providers were modelled.
    state.build ??= 17763;
    state.secureBoot ??= false;
    state.firmware ??= 'UEFI';
    state.elevated ??= true;
    state.packageProviders ??= [];
    state.psModules ??= [];
    state.firewall ??= { Domain: true, Private: true, Public: true };
    state.catalog.registries ??= [...DEFAULT_CATALOG.registries];
    // States saved before programs could run powershell.exe: Windows has always had it.
    if (!this.fs.isFile(POWERSHELL_EXE)) this.fs.put(POWERSHELL_EXE, 'Windows PowerShell 5.1');
  }

  static fresh(options: FreshWindowsOptions): WindowsHost {
    const host = WindowsHost.#fresh(options);
    if (options.containerd) host.fs.put(CONTAINERD_EXE, 'containerd.exe');
    // The image has Chocolatey (contrail-windows-ci's templates) unless said; groundcrew installs it where missing.
    const choco = options.chocolatey ?? true;
    if (choco !== false) installChocolatey(host, choco === true ? '0.10.11' : choco.version, choco !== true && choco.enhancedExitCodes);
    return host;
  }

  static #fresh(options: FreshWindowsOptions): WindowsHost {
    const features: Record<string, FeatureState> = Object.fromEntries(SERVER_FEATURES.map((f) => [f, 'Available' as FeatureState]));
    for (const f of options.features ?? []) {
      features[f] = 'Installed';
      // A host "with Hyper-V" was prepared with its management tools, as Server Manager installs it.
      if (f === 'Hyper-V') for (const tool of HYPERV_TOOLS) features[tool] = 'Installed';
    }
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
      build: options.build ?? 17763,
      secureBoot: options.firmware === 'BIOS' ? false : (options.secureBoot ?? false),
      firmware: options.firmware ?? 'UEFI',
      elevated: options.elevated ?? true,
      ...(options.managementAddress ? { managementAddress: options.managementAddress } : {}),
      ...(options.nics ? { nics: options.nics } : {}),
      packageProviders: [],
      psModules: [],
      firewall: { Domain: true, Private: true, Public: true },
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
        { destinationPrefix: '255.255.255.255/32', nextHop: '0.0.0.0', interfaceAlias: options.nics?.[0]?.name ?? 'Ethernet0' },
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
    const names = productNames(kind);
    return Object.values(this.state.products).find((p) => names.includes(p.name));
  }

  /** The data adapter the CNM plugin's config names (`Adapter=` of [DRIVER]), if it has one. */
  contrailAdapter(): string | undefined {
    return /^\s*Adapter\s*=\s*(.+?)\s*$/im.exec(this.fs.read(CNM_CONFIG) ?? '')?.[1];
  }

  /** The transparent switch exists while the docker driver runs (it creates it). */
  switchExists(): boolean {
    return (this.isRunning('contrail-cnm-plugin') || this.isRunning('contrail-docker-driver')) && this.isRunning('docker');
  }

  extensionRunning(): boolean {
    return this.productOf('vrouter') !== undefined && this.switchExists() && !this.state.faults.extensionDisabled;
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

  /**
   * The host's vNIC on the Contrail switch, while the switch exists. Server 2016 names it
   * `vEthernet (HNSTransparent)` (c-a-d's win_vhost_name); Server 2019 after the adapter the switch binds,
   * `vEthernet (<physical adapter>)` (c-a-d 85486b9b "Handle Windows Server 2019 vhost friendly name";
   * contrail-controller's agent entrypoint.ps1 looks it up as `vEthernet (*)`).
   */
  vhostAdapter(): string | undefined {
    const adapter = this.contrailAdapter();
    if (!this.switchExists() || !adapter) return undefined;
    return this.state.build === 14393 ? HNS_TRANSPARENT_VNIC : `vEthernet (${adapter})`;
  }

  /**
   * The HNS networks, as HNS lists them: the CNM plugin makes ContrailRootNetwork, a transparent network on
   * its adapter, while it runs (contrail-windows-ci's diagnostic check; the CI's Enable-VRouterExtension
   * names its own root network so), then those the host's state holds.
   */
  hnsNetworks(): HnsNetwork[] {
    const root: HnsNetwork[] =
      this.switchExists() && !this.state.faults.noRootNetwork
        ? [
            {
              name: 'ContrailRootNetwork',
              type: 'Transparent',
              id: '00000000-0000-0000-0000-0000c0a7a11e',
              adapter: this.contrailAdapter() ?? '',
            },
          ]
        : [];
    return [...root, ...this.state.hnsNetworks];
  }

  /** The adapters the host was built with, the management one first (windows-state.ts NicState). */
  nics(): NicState[] {
    return this.state.nics ?? defaultNics(this.state.managementAddress);
  }

  /** The built adapter of that name (Windows compares adapter names without case), if there is one. */
  nic(name: string | undefined): NicState | undefined {
    return this.nics().find((n) => n.name.toLowerCase() === name?.toLowerCase());
  }

  /** Whether the adapters from DHCP have their lease yet (faults.dhcpLeaseAt). */
  dhcpLeased(): boolean {
    return this.state.faults.dhcpLeaseAt === undefined || Date.now() >= this.state.faults.dhcpLeaseAt;
  }

  /**
   * The adapters Get-NetAdapter shows, with the NDIS interface names (ifName) the vRouter's tools print: those the
   * host was built with, the Contrail switch's vNIC (vhostAdapter), and a transparent network's, named after the
   * adapter it binds.
   */
  adapters(): { name: string; status: 'Up'; ifIndex: number; ifName: string }[] {
    const adapters = this.nics().map((n, i) => ({ name: n.name, status: 'Up' as const, ifIndex: 4 + i, ifName: `ethernet_${32768 + i}` }));
    // Virtual adapters are numbered after the built ones (Ethernet0 and Ethernet1 leave the numbers they always had).
    const more = Math.max(adapters.length - 2, 0);
    const vhost = this.vhostAdapter();
    const made = Math.max(this.state.switchesMade ?? 1, 1);
    if (vhost) adapters.push({ name: vhost, status: 'Up', ifIndex: 11 + more + made, ifName: `ethernet_${32776 + more + made}` });
    for (const [i, n] of this.state.hnsNetworks.entries())
      if (n.type === 'Transparent' && n.adapter)
        adapters.push({ name: `vEthernet (${n.adapter})`, status: 'Up', ifIndex: 20 + more + i, ifName: `ethernet_${32780 + more + i}` });
    return adapters;
  }

  /**
   * The adapters' own IPv4 addresses (DHCP or static, not groundcrew's): those the host was built with, an adapter
   * from DHCP only once leased. A vSwitch bound to an adapter moves its address to the host's vNIC.
   */
  adapterAddresses(): { interfaceAlias: string; ipAddress: string; prefixLength: number; gateway?: string; origin: 'Dhcp' | 'Manual' }[] {
    const leased = this.dhcpLeased();
    const base = this.nics()
      .filter((n) => n.origin === 'Manual' || leased)
      .map(({ name, ipAddress, prefixLength, gateway, origin }) => ({
        interfaceAlias: name,
        ipAddress,
        prefixLength,
        ...(gateway ? { gateway } : {}),
        origin,
      }));
    const vhost = this.vhostAdapter();
    const contrail = vhost ? this.contrailAdapter()?.toLowerCase() : undefined;
    const bound = new Set(this.state.hnsNetworks.filter((n) => n.type === 'Transparent' && n.adapter).map((n) => n.adapter?.toLowerCase()));
    return base.flatMap((a) => {
      const lower = a.interfaceAlias.toLowerCase();
      if (vhost && lower === contrail) return this.state.vhostUnaddressed ? [] : [{ ...a, interfaceAlias: vhost }];
      if (bound.has(lower)) return [{ ...a, interfaceAlias: `vEthernet (${a.interfaceAlias})` }];
      return [a];
    });
  }

  /** Interfaces routes may use: the adapters and the loopback. */
  interfaceExists(alias: string): boolean {
    return alias === 'Loopback Pseudo-Interface 1' || this.adapters().some((a) => a.name.toLowerCase() === alias.toLowerCase());
  }

  /** Removes an HNS network; a transparent one takes its vNIC, and Windows drops that interface's addresses and routes. */
  removeNetwork(name: string): void {
    const gone = this.state.hnsNetworks.find((n) => n.name === name);
    this.state.hnsNetworks = this.state.hnsNetworks.filter((n) => n !== gone);
    if (gone?.type !== 'Transparent') return;
    const alias = `vEthernet (${gone.adapter})`;
    this.state.ipAddresses = this.state.ipAddresses.filter((a) => a.interfaceAlias !== alias);
    this.state.routes = this.state.routes.filter((r) => r.interfaceAlias !== alias);
  }

  listeningPorts(): number[] {
    if (this.state.faults.agentNotListening) return [];
    return this.extensionRunning() && this.isRunning('contrail-vrouter-agent') ? [AGENT_PORT] : [];
  }

  systemStartOptions(): string {
    return this.state.activeTestSigning ? ' TESTSIGNING  NOEXECUTE=OPTOUT' : ' NOEXECUTE=OPTOUT';
  }

  // ---- services ----

  /** Starts a service and what it depends on; undefined on success, else the reason Windows gives. */
  startService(name: string): string | undefined {
    return startService(this, name);
  }

  /** Stops a service; with dependents running, only with force (which stops them too). */
  stopService(name: string, force: boolean): string | undefined {
    return stopService(this, name, force);
  }

  /**
   * Deletes a service (stopped first): "The service control manager deletes the service by deleting the service
   * key and its subkeys from the registry" (DeleteService, winsvc.h), NSSM's Parameters among them.
   */
  deleteService(name: string): void {
    this.stopService(name, true);
    delete this.state.services[name.toLowerCase()];
    const key = `hklm:\\system\\currentcontrolset\\services\\${name.toLowerCase()}`;
    for (const path of Object.keys(this.state.registry)) if (path === key || path.startsWith(`${key}\\`)) delete this.state.registry[path];
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
