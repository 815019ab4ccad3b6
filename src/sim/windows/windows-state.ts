// What a simulated Windows host is: its saved state (a JSON file in the lab and the daemon's sim-hosts/).

import type { WindowsFsState } from './windows-fs.js';

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
  /** The Docker network driver that made it (transparent, nat, Contrail); none: an HNS network Docker does not know. */
  driver?: string;
}

export interface NetRoute {
  destinationPrefix: string;
  nextHop: string;
  interfaceAlias: string;
}

/**
 * A network adapter the host was built with, and its own IPv4 address (DHCP or static: not one groundcrew added).
 * The first is the management adapter, the one that carries the node's own address.
 */
export interface NicState {
  name: string;
  ipAddress: string;
  prefixLength: number;
  gateway?: string;
  origin: 'Dhcp' | 'Manual';
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
  /** The ProductVersion of the MSI's source (msi-products.ts): the same for every Contrail build. */
  version: string;
  /** The Contrail build the MSI came from: it stands for the package code, which Windows keeps per build. */
  build: string;
  msiFile: string;
}

/** What an MSI file in the sim holds: enough to know what installing it does. */
export interface MsiPackage {
  msi: 'groundcrew-sim';
  product: 'vrouter' | 'utils' | 'agent' | 'cnm-plugin';
  name: string;
  version: string;
  /** The Contrail version of the image that shipped it. */
  build: string;
  /** vRouter only: a production-signed driver needs no test signing. */
  signed?: boolean;
  /** vRouter only, test-signed builds: the certificate Windows must trust to load the driver. */
  signerThumbprint?: string;
  /** The docker driver of Contrail 5.0: installs contrail-windows-docker.exe instead of contrail-cnm-plugin.exe. */
  layout?: 'docker-driver';
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
  /** A broken vRouter, for the diagnostic check: the extension disabled (and so not running). */
  extensionDisabled?: boolean;
  /** vifs the vRouter lost (vif --list does not show them). */
  vifMissing?: ('physical' | 'vhost' | 'pkt0')[];
  /** The flow device \\.\vrouterFlow cannot be opened (flow -l fails). */
  flowBroken?: boolean;
  /** The agent runs but does not serve its API on TCP 9091. */
  agentNotListening?: boolean;
  /** The CNM plugin runs but made no ContrailRootNetwork. */
  noRootNetwork?: boolean;
  /**
   * The DHCP lease arrives at this time (ms since the epoch): before it the adapters addressed by DHCP (Ethernet1 of
   * a host made without a list) have no IPv4 address (contrail-windows-ci waits for one before it starts the CNM
   * plugin: Wait-RemoteInterfaceIP).
   */
  dhcpLeaseAt?: number;
  /** The next N starts of the CNM plugin fail to enable the extension, and the plugin exits (the CI retries). */
  cnmEnableFailures?: number;
  /** The ksync device cannot be opened (`vif --list` fails, as without the extension). */
  ksyncBroken?: boolean;
  /** The bridge table device cannot be opened (`rt --dump 0 --family bridge` fails). */
  bridgeTableBroken?: boolean;
  /** The CNM plugin's \\.\pipe\Contrail exists but no server instance accepts a connect. */
  pipeNotServing?: boolean;
}

export interface SimCatalog {
  /** Contrail image tags the simulated registry serves. */
  contrailVersions: string[];
  /** Docker versions DockerMsftProvider offers. */
  dockerVersions: string[];
  /**
   * Whether the registry also carries `contrail-windows-vrouter-signed` (a production-signed vRouter.msi), the
   * image c-a-d's contrail_vrouter_windows pulls when WINDOWS_USE_SIGNED_VROUTER is defined; the plain
   * `contrail-windows-vrouter` always holds the test-signed build.
   */
  signedVrouter: boolean;
  /**
   * Registries this host can reach, by the name before the first `/` of an image (`docker.io` for Docker
   * Hub organisations such as `opencontrailnightly`). A pull from any other fails as Docker's does.
   */
  registries: string[];
  /** Of those, the ones served over plain HTTP (a private registry without TLS): Docker pulls only if told they are insecure. */
  plainHttpRegistries?: string[];
  /** The Chocolatey release community.chocolatey.org's install.ps1 installs; unset, the host cannot reach the site. */
  chocolatey?: string;
}

/** Windows Server 2016 (14393) and 2019 (17763): the builds Contrail's Windows compute supported. */
export type WindowsBuild = 14393 | 17763;

export interface WindowsState {
  os: 'windows';
  hostname: string;
  build: WindowsBuild;
  /** UEFI Secure Boot on: the BCD refuses testsigning (bcdedit's "protected by Secure Boot policy"). */
  secureBoot: boolean;
  /**
   * The firmware the host booted from. A BIOS host (Gen1 Hyper-V, SeaBIOS KVM, a BIOS VMware guest) has no
   * Secure Boot, and Confirm-SecureBootUEFI fails there ("Cmdlet not supported on this platform",
   * windows-powershell-docs SecureBoot/Confirm-SecureBootUEFI.md).
   */
  firmware: 'UEFI' | 'BIOS';
  /** Whether the SSH session has an elevated (High Mandatory Level) token; most changes need one. */
  elevated: boolean;
  /** PackageManagement providers installed beyond the built-in ones (NuGet, DockerMsftProvider). */
  packageProviders: string[];
  /** Modules installed with Install-Module (PowerShell Gallery). */
  psModules: string[];
  /** Ethernet0's address (the node's own); 192.0.2.50 when unset. */
  managementAddress?: string;
  /**
   * The adapters the host was built with (a rehearsal builds them from the inventory: cli/sim-cluster.ts). Unset (a
   * host made without a list, or saved before adapters were modelled): Ethernet0, static, with managementAddress,
   * and Ethernet1 from DHCP (DEFAULT_NICS).
   */
  nics?: NicState[];
  /** Windows Firewall, per profile: enabled or not. */
  firewall: { Domain: boolean; Private: boolean; Public: boolean };
  bootCount: number;
  lastBootUpTime: string;
  features: Record<string, FeatureState>;
  services: Record<string, ServiceState>;
  products: Record<string, InstalledProduct>;
  certStores: { Root: Record<string, string>; TrustedPublisher: Record<string, string> };
  bcdTestSigning: boolean;
  activeTestSigning: boolean;
  pending: { cbs: boolean; fileRename: boolean };
  /** `insecureRegistries`: daemon.json's insecure-registries as Docker read them when it last started. */
  docker?: { version: string; insecureRegistries?: string[] };
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
  /**
   * How many times the CNM plugin has made the Contrail switch: each one gives the vhost a new interface and
   * so a new ifName (why the agent's entrypoint.ps1 writes the vhost's ifName into its config at each start).
   */
  switchesMade?: number;
  /**
   * The Contrail switch was made while the data adapter had no address: its vNIC took none (a vSwitch moves
   * the adapter's address to the vNIC at creation). Cleared when the switch is made again.
   */
  vhostUnaddressed?: boolean;
  /** Set while the host is rebooting: unreachable until this time (ms since the epoch), then it boots. */
  downUntil?: number;
}

export const DEFAULT_CATALOG: SimCatalog = {
  contrailVersions: ['5.0.0', '5.0.1', '5.0.2', '5.1.0', 'latest'],
  dockerVersions: ['17.06', '18.09', '19.03'],
  signedVrouter: false,
  registries: ['docker.io'],
  chocolatey: '2.2.2',
};

export interface FreshWindowsOptions {
  hostname: string;
  /** 17763 (Server 2019) unless said. */
  build?: WindowsBuild;
  secureBoot?: boolean;
  /** UEFI unless said. */
  firmware?: 'UEFI' | 'BIOS';
  /** true unless said: groundcrew's documented setup logs in as an administrator. */
  elevated?: boolean;
  /**
   * Chocolatey on the image: 0.10.11 unless said (true), none (false), or a release (1.x, 2.x) with its
   * useEnhancedExitCodes feature enabled or not (disabled unless said).
   */
  chocolatey?: boolean | { version: string; enhancedExitCodes?: boolean };
  /** The address of the management adapter Ethernet0 (the node's address in the inventory). */
  managementAddress?: string;
  /** The adapters it has, the management one first; Ethernet0 and Ethernet1 unless said (DEFAULT_NICS). */
  nics?: NicState[];
  /** Features already installed (a host prepared by hand). */
  features?: string[];
  /** containerd installed as a service (a Kubernetes worker's runtime; groundcrew does not install it). */
  containerd?: boolean;
  catalog?: Partial<SimCatalog>;
  now?: Date;
}

/** The adapters of a host made without a list: the management adapter Ethernet0 (static) and Ethernet1 from DHCP. */
export function defaultNics(managementAddress = '192.0.2.50'): NicState[] {
  return [
    { name: 'Ethernet0', ipAddress: managementAddress, prefixLength: 24, gateway: '192.0.2.1', origin: 'Manual' },
    { name: 'Ethernet1', ipAddress: '172.16.0.50', prefixLength: 24, gateway: '172.16.0.1', origin: 'Dhcp' },
  ];
}

/** The executable a service runs: its binary path without arguments. */
export function executableOf(svc: ServiceState): string {
  return svc.binaryPath.replace(/^"([^"]+)".*$/, '$1').replace(/\.exe\s.*$/i, '.exe');
}
