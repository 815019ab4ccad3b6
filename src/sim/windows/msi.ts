// msiexec in the simulator: install, uninstall and their exit codes, with a verbose log like the real one.

import { productCode, thumbprintOf } from './identifiers.js';
import { MSI_PRODUCTS } from './msi-products.js';
import { UTILS_FILES } from './utils-programs.js';
import type { WindowsHost } from './windows-host.js';
import { SERVICE_DIR } from './windows-paths.js';
import type { MsiPackage } from './windows-state.js';

export const MSI = {
  SUCCESS: 0,
  UNKNOWN_PRODUCT: 1605,
  INSTALL_FAILURE: 1603,
  ALREADY_RUNNING: 1618,
  ANOTHER_VERSION: 1638,
  OPEN_FAILED: 1619,
  REBOOT_REQUIRED: 3010,
  INVALID_COMMAND_LINE: 1639,
} as const;

function readMsi(host: WindowsHost, path: string): MsiPackage | undefined {
  const text = host.fs.read(path);
  if (text === undefined) return undefined;
  try {
    const pkg = JSON.parse(text) as MsiPackage;
    return pkg.msi === 'groundcrew-sim' ? pkg : undefined;
  } catch {
    return undefined;
  }
}

/** The test certificate a vRouter build is signed with (what the image ships as vRouter.cer). */
export function testCertificate(version: string): string {
  return `-----BEGIN CERTIFICATE-----\r\nCN=Contrail Test Signing ${version}\r\n-----END CERTIFICATE-----\r\n`;
}

/** An MSI of `product` from the Contrail image of `build`: registered under its real name and version. */
export function msiContent(product: MsiPackage['product'], build: string, signed = false, layout?: 'docker-driver'): string {
  const signer = product === 'vrouter' ? { signed, ...(signed ? {} : { signerThumbprint: thumbprintOf(testCertificate(build)) }) } : {};
  const identity = MSI_PRODUCTS[layout ?? product];
  const pkg: MsiPackage = {
    msi: 'groundcrew-sim',
    product,
    name: identity.name,
    version: identity.version,
    build,
    ...signer,
    ...(layout ? { layout } : {}),
  };
  return JSON.stringify(pkg);
}

interface Parsed {
  action: 'install' | 'uninstall';
  target: string;
  log?: string;
  quiet: boolean;
}

function parseArgs(argv: string[]): Parsed | undefined {
  let action: Parsed['action'] | undefined;
  let target: string | undefined;
  let log: string | undefined;
  let quiet = false;
  for (let i = 0; i < argv.length; i++) {
    const a = (argv[i] ?? '').toLowerCase();
    if (a === '/i' || a === '/package') {
      action = 'install';
      target = argv[++i];
    } else if (a === '/x' || a === '/uninstall') {
      action = 'uninstall';
      target = argv[++i];
    } else if (a === '/qn' || a === '/quiet' || a === '/q') quiet = true;
    else if (a === '/norestart') {
      // The sim never restarts on its own; 3010 tells the caller instead.
    } else if (a.startsWith('/l')) log = argv[++i];
    else if (/^[a-z_]+=/i.test(argv[i] ?? '')) {
      // PROPERTY=value pairs are accepted and ignored.
    } else return undefined;
  }
  return action && target ? { action, target, quiet, ...(log ? { log } : {}) } : undefined;
}

/** A verbose MSI log whose last lines say what happened, as the roles read them (Get-Content -Tail). */
function writeLog(host: WindowsHost, log: string | undefined, product: string, detail: string, code: number): void {
  if (!log) return;
  const ok = code === 0 || code === 3010;
  const body = [
    '=== Verbose logging started ===',
    `MSI (s) (00:00) [00:00:00:000]: Doing action: InstallFinalize for ${product}`,
    `MSI (s) (00:00) [00:00:00:000]: Product: ${product} -- ${ok ? `Installation operation completed successfully. ${detail}` : detail}`,
    `MSI (s) (00:00) [00:00:00:000]: Windows Installer ${ok ? 'installed' : 'failed to install'} the product. Installation success or error status: ${code}.`,
    '=== Logging stopped ===',
  ];
  host.fs.put(log, `${body.join('\r\n')}\r\n`);
}

/** Runs msiexec with `argv`; the exit code is what Start-Process -Wait -PassThru reports. */
export function runMsiexec(host: WindowsHost, argv: string[]): number {
  const parsed = parseArgs(argv);
  if (!parsed) return MSI.INVALID_COMMAND_LINE;
  if ((host.state.faults.busyMsi ?? 0) > 0) {
    host.state.faults.busyMsi = (host.state.faults.busyMsi ?? 1) - 1;
    writeLog(host, parsed.log, parsed.target, 'Error 1618. Another installation is already in progress.', MSI.ALREADY_RUNNING);
    return MSI.ALREADY_RUNNING;
  }
  return parsed.action === 'install' ? install(host, parsed) : uninstall(host, parsed);
}

function install(host: WindowsHost, { target, log }: Parsed): number {
  const pkg = readMsi(host, target);
  if (!pkg) {
    writeLog(
      host,
      log,
      target,
      'Error 1619. This installation package could not be opened. Verify that the package exists and that you can access it.',
      MSI.OPEN_FAILED,
    );
    return MSI.OPEN_FAILED;
  }
  // Every build of an MSI has the same product code and version (msi-products.ts); only its package differs.
  const code = MSI_PRODUCTS[pkg.layout ?? pkg.product].productCode ?? productCode(pkg.name, pkg.build);
  const installed = Object.values(host.state.products).find((p) => p.name === pkg.name);
  if (installed && installed.build === pkg.build) {
    writeLog(host, log, pkg.name, 'The product is already installed from this package.', MSI.SUCCESS);
    return MSI.SUCCESS;
  }
  if (installed && pkg.layout === 'docker-driver') {
    // go-msi's template: an Upgrade table with OnlyDetect from this version up, and a launch condition on it.
    writeLog(host, log, pkg.name, 'A newer version of this software is already installed.', MSI.INSTALL_FAILURE);
    return MSI.INSTALL_FAILURE;
  }
  if (installed) {
    const message = 'Error 1638. Another version of this product is already installed. Installation of this version cannot continue.';
    writeLog(host, log, pkg.name, message, MSI.ANOTHER_VERSION);
    return MSI.ANOTHER_VERSION;
  }
  const fileName = target.replace(/^.*[\\/]/, '');
  const failure = host.state.faults.failMsi?.some((f) => f.toLowerCase() === fileName.toLowerCase())
    ? 'CustomAction InstallDriver returned actual error code 1603 (injected fault)'
    : pkg.product === 'vrouter' && host.state.faults.failVersions?.includes(pkg.build)
      ? `CustomAction InstallDriver returned actual error code 1603: vRouter ${pkg.build} driver failed to start (injected fault: a bad build)`
      : pkg.product === 'vrouter'
        ? vrouterProblem(host, pkg)
        : undefined;
  if (failure) {
    writeLog(host, log, pkg.name, failure, MSI.INSTALL_FAILURE);
    host.record(`msi-failed ${pkg.name} ${pkg.build}`);
    return MSI.INSTALL_FAILURE;
  }
  host.state.products[code] = { productCode: code, name: pkg.name, version: pkg.version, build: pkg.build, msiFile: target };
  placeFiles(host, pkg, code);
  host.record(`msi-install ${pkg.name} ${pkg.build}`);
  const reboot = host.state.faults.rebootMsi?.some((f) => f.toLowerCase() === fileName.toLowerCase());
  if (reboot) host.state.pending.fileRename = true;
  writeLog(host, log, pkg.name, reboot ? 'A restart is required to complete the install.' : '', reboot ? MSI.REBOOT_REQUIRED : MSI.SUCCESS);
  return reboot ? MSI.REBOOT_REQUIRED : MSI.SUCCESS;
}

/** Why Windows would refuse to load an unsigned vRouter driver, if it would. */
function vrouterProblem(host: WindowsHost, pkg: MsiPackage): string | undefined {
  if (pkg.signed) return undefined;
  const thumb = pkg.signerThumbprint ?? '';
  const trusted = thumb in host.state.certStores.Root && thumb in host.state.certStores.TrustedPublisher;
  if (!trusted)
    return 'Error 1920. Service vRouter failed to start: the driver publisher is not trusted (certificate not in LocalMachine\\Root and TrustedPublisher).';
  if (!host.state.activeTestSigning)
    return 'Error 1920. Windows cannot verify the digital signature for the drivers required for this device (Code 52): test signing is not active.';
  return undefined;
}

function placeFiles(host: WindowsHost, pkg: MsiPackage, code: string): void {
  const stamp = JSON.stringify({ product: code, build: pkg.build });
  switch (pkg.product) {
    case 'vrouter':
      host.fs.put('C:\\Windows\\System32\\drivers\\vrouter.sys', stamp);
      break;
    case 'utils':
      // The MSI's full set (utils-programs.ts); contrail-windows-ci checks vif, nh, rt, flow load their DLLs
      // (Test-IfUtilsCanLoadDLLs).
      for (const file of UTILS_FILES) host.fs.put(file, stamp);
      break;
    case 'agent':
      host.fs.put(`${SERVICE_DIR}\\agent\\contrail-vrouter-agent.exe`, stamp);
      break;
    case 'cnm-plugin':
      // The MSI ships the binary; the service is made with NSSM (c-a-d contrail_cnm_windows, win_nssm).
      if (pkg.layout === 'docker-driver') host.fs.put(`${SERVICE_DIR}\\contrail-windows-docker.exe`, stamp);
      else host.fs.put(`${SERVICE_DIR}\\cnm-plugin\\contrail-cnm-plugin.exe`, stamp);
      break;
  }
}

function uninstall(host: WindowsHost, { target, log }: Parsed): number {
  const byCode = host.state.products[target.toUpperCase()];
  const pkg = byCode ? undefined : readMsi(host, target);
  const product =
    byCode ?? (pkg ? Object.values(host.state.products).find((p) => p.name === pkg.name && p.build === pkg.build) : undefined);
  if (!product) {
    writeLog(host, log, target, 'Error 1605. This action is only valid for products that are currently installed.', MSI.UNKNOWN_PRODUCT);
    return MSI.UNKNOWN_PRODUCT;
  }
  for (const [name, svc] of Object.entries(host.state.services)) {
    if (svc.product === product.productCode) {
      host.stopService(svc.name, true);
      delete host.state.services[name];
    }
  }
  for (const file of Object.values(host.state.fs.files)) {
    if (file.content.includes(product.productCode)) host.fs.remove(file.path, false);
  }
  delete host.state.products[product.productCode];
  host.record(`msi-uninstall ${product.name} ${product.build}`);
  writeLog(host, log, product.name, 'Removal completed successfully.', MSI.SUCCESS);
  return MSI.SUCCESS;
}
