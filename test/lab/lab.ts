// The lab: N hosts in network namespaces on one bridge, each a real OpenSSH sshd. Linux hosts run real
// bash (with shims for docker, systemctl and reboot); Windows hosts run real pwsh (gc-windows-exec), whose Windows
// module and programs answer from the host's simulated state (src/sim/windows/real-pwsh/).

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { type FreshLinuxOptions, LinuxHost } from '../../src/sim/linux/linux-host.js';
import { SimNetwork } from '../../src/sim/network.js';
import { PwshBridgeServer } from '../../src/sim/transports/pwsh-bridge-server.js';
import { SimSocketServer } from '../../src/sim/transports/socket-server.js';
import { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { WindowsShell } from '../../src/sim/windows/windows-shell.js';
import type { FreshWindowsOptions, WindowsFaults } from '../../src/sim/windows/windows-state.js';
import { pwshPath } from '../support/pwsh.js';
import { realPwshCommand, realPwshEnv, writeRealPwshConfig } from '../support/real-pwsh-env.js';
import { compileSimClient } from '../support/sim-client.js';
import { waitUntil } from '../support/wait-until.js';
import { type HostPaths, hostPaths, PRIVATE_DIRS, passwordHash, sshdLaunch, type WindowsPwsh, writeHostFiles } from './host-files.js';
import { freeSubnet, ipBatch, killAll, netnsList, sh, teardown } from './netns.js';
import { handleSimRequest } from './sim-handler.js';

export const LAB_ROOT = process.env.GC_LAB_ROOT ?? '/tmp/gc-lab';
/** Every lab's names start with this; a run's own prefix adds four hex digits. */
export const LAB_PREFIX = 'gl';
export const LAB_PASSWORD = 'lab-Passw0rd!';

export interface LabHostSpec {
  name: string;
  os: 'linux' | 'windows';
  /** Windows only: features already installed, and whether its vRouter builds are production-signed. */
  windows?: Omit<FreshWindowsOptions, 'hostname'>;
  /** Linux only: its distribution (Docker, Compose, os-release), and the external controller it stands for. */
  linux?: FreshLinuxOptions;
  /**
   * Windows only: what runs its sessions' scripts. Real pwsh (the default, unless the lab's `realPwsh` is false) or
   * the TypeScript interpreter: a test whose subject is not the engine may keep a host on the interpreter (each real
   * pwsh session costs a process start), and says so where it chooses it.
   */
  engine?: WindowsEngine;
}

/** Real PowerShell behind the host's sshd (the bridge), or the TypeScript interpreter answering the command line. */
export type WindowsEngine = 'real-pwsh' | 'interpreter';

export interface LabOptions {
  hosts: LabHostSpec[];
  /** How long a host stays down when it reboots. */
  rebootMs?: number;
  /** Callers with keys of their own (several daemons): the call log names which one sent each command. */
  callers?: string[];
  /**
   * Windows hosts run real pwsh (gc-windows-exec, the real-pwsh bridge: the default), or with `false` the
   * TypeScript interpreter answers their command lines (the HA tests, whose subject is cluster mode, keep it).
   */
  realPwsh?: boolean;
}

export interface LabCall {
  /** When the host received it, ms since the epoch. */
  at: number;
  /** The caller whose key the session used (`-`: the lab's own key). */
  caller: string;
  command: string;
}

export interface LabFaults extends WindowsFaults {
  slowMs?: number;
  /** The next command's connection is dropped this many ms after it starts. */
  dropAfterMs?: number;
  neverReturnFromReboot?: boolean;
  refuseAuth?: boolean;
}

export interface LabHost {
  name: string;
  os: 'linux' | 'windows';
  address: string;
  netns: string;
  user: string;
  paths: HostPaths;
  model: WindowsHost | LinuxHost;
  /** Windows hosts: what runs their scripts. */
  engine?: WindowsEngine;
  rebooting: boolean;
  reboots: number;
  faults: LabFaults;
  sshd?: ChildProcess;
}

async function compileClient(): Promise<string> {
  return compileSimClient(join(LAB_ROOT, 'bin'));
}

/** A Windows host's pwsh TMPDIR, where the pipes it serves listen (src/sim/transports/pipe-listeners.ts). */
const pipeDirOf = (labDir: string, hostName: string) => join(labDir, 'pipes', hostName);

/**
 * Real pwsh for a Windows host's account: the module for the host's build (written once per lab and build), and the
 * environment its sessions start with (gc-windows-exec puts each session's own directories in).
 */
async function windowsPwsh(
  host: LabHost,
  model: WindowsHost,
  lab: { dir: string; socket: string; client: string; emptyPath: string; bridge: string },
): Promise<WindowsPwsh> {
  const build = model.state.build === 14393 ? 14393 : 17763;
  const configHome = await writeRealPwshConfig(join(lab.dir, 'pwsh', host.name), build);
  // pwsh makes its Temp: drive at TMPDIR when it starts: the directory must be there first.
  await mkdir(pipeDirOf(lab.dir, host.name), { recursive: true });
  const pwsh = realPwshCommand(pwshPath());
  return {
    command: [pwsh.file, ...pwsh.args],
    env: realPwshEnv({
      configHome,
      work: '@WORK@',
      scratch: '@SCRATCH@',
      emptyPath: lab.emptyPath,
      pipeDir: pipeDirOf(lab.dir, host.name),
      bridgeSocket: lab.bridge,
      nativeSocket: lab.socket,
      simClient: lab.client,
      hostName: host.name,
      computerName: model.state.hostname,
    }),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Removes labs whose owning process is gone (a crashed test run); never touches a live one. */
export async function removeLeftovers(): Promise<string[]> {
  const removed: string[] = [];
  const dirs = existsSync(LAB_ROOT) ? (await readdir(LAB_ROOT)).filter((d) => d.startsWith(LAB_PREFIX)) : [];
  const owners = new Map<string, number>();
  for (const d of dirs) owners.set(d, Number(await readFile(join(LAB_ROOT, d, 'owner.pid'), 'utf8').catch(() => '0')));
  // A lab another test file is starting this moment has its directory a moment before its owner.pid.
  const young = (d: string) => Date.now() - (statSync(join(LAB_ROOT, d), { throwIfNoEntry: false })?.mtimeMs ?? 0) < 60_000;
  const prefixes = new Set([...dirs, ...(await netnsList()).filter((n) => n.startsWith(LAB_PREFIX)).map((n) => n.slice(0, 6))]);
  for (const prefix of prefixes) {
    const owner = owners.get(prefix) ?? 0;
    if (owner ? alive(owner) : owners.has(prefix) && young(prefix)) continue;
    await teardown(`${prefix}-`);
    await rm(join(LAB_ROOT, prefix), { recursive: true, force: true });
    removed.push(prefix);
  }
  return removed;
}

/** Whether something accepts TCP connections at `address`:`port` now (a short connect timeout: a host coming up drops SYNs). */
function accepts(address: string, port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect({ host: address, port, timeout: 200 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export class Lab {
  readonly hosts: LabHost[] = [];
  #server: SimSocketServer | undefined;
  #pwsh: PwshBridgeServer | undefined;
  #http: Server | undefined;
  #stopped = false;
  /** Saves of host state so far: each writes a temporary file of its own. */
  #saves = 0;

  private constructor(
    readonly prefix: string,
    readonly dir: string,
    readonly gateway: string,
    readonly privateKey: string,
    readonly rebootMs: number,
    readonly shell: WindowsShell,
  ) {}

  static async start(options: LabOptions): Promise<Lab> {
    await removeLeftovers();
    const prefix = `${LAB_PREFIX}${randomBytes(2).toString('hex')}`;
    const dir = join(LAB_ROOT, prefix);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'owner.pid'), String(process.pid));
    for (const d of PRIVATE_DIRS) await mkdir(d, { recursive: true });
    await mkdir('/run/sshd', { recursive: true });

    const [client, subnet, shell] = await Promise.all([compileClient(), freeSubnet(), WindowsShell.create()]);
    const privateKey = join(dir, 'id_ed25519');
    await sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'groundcrew-lab', '-f', privateKey]);
    const publicKey = await readFile(`${privateKey}.pub`, 'utf8');
    const hash = await passwordHash(LAB_PASSWORD);
    const callers = await Promise.all(
      (options.callers ?? []).map(async (name) => {
        const file = join(dir, `id_${name}`);
        await sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
        return { name, publicKey: await readFile(`${file}.pub`, 'utf8') };
      }),
    );
    const lab = new Lab(prefix, dir, `${subnet}.1`, privateKey, options.rebootMs ?? 1500, shell);
    try {
      const socket = join(dir, 'sim.sock');
      lab.#server = await SimSocketServer.listen(socket, (request) => handleSimRequest(lab, request));
      lab.#pwsh = await PwshBridgeServer.listen(join(dir, 'pwsh.sock'), {
        hostOf: (name) => {
          const model = lab.hosts.find((h) => h.name === name)?.model;
          return model instanceof WindowsHost ? model : undefined;
        },
        answered: (name) => {
          const host = lab.hosts.find((h) => h.name === name);
          if (host) void lab.saveState(host);
        },
        pipeDirOf: (name) => (lab.hosts.some((h) => h.name === name) ? pipeDirOf(dir, name) : undefined),
      });
      const emptyPath = join(dir, 'empty-path');
      await mkdir(emptyPath, { recursive: true });
      lab.#http = await lab.#listenHttp(join(dir, 'http.sock'));
      const bridge = `${prefix}-br`;
      const root: string[] = [`link add ${bridge} type bridge`, `addr add ${subnet}.1/24 dev ${bridge}`, `link set ${bridge} up`];
      options.hosts.forEach((spec, i) => {
        const netns = `${prefix}-${i + 1}`;
        root.push(
          `netns add ${netns}`,
          `link add ${prefix}-v${i + 1} type veth peer name ${prefix}-p${i + 1}`,
          `link set ${prefix}-p${i + 1} netns ${netns}`,
          `link set ${prefix}-v${i + 1} master ${bridge} up`,
        );
        const paths = hostPaths(join(dir, 'hosts', spec.name));
        const model =
          spec.os === 'windows'
            ? WindowsHost.fresh({ hostname: spec.name, ...spec.windows })
            : LinuxHost.fresh(spec.name, {}, spec.linux ?? {});
        lab.hosts.push({
          name: spec.name,
          os: spec.os,
          address: `${subnet}.${i + 2}`,
          netns,
          user: spec.os === 'windows' ? 'Administrator' : 'root',
          ...(spec.os === 'windows' ? { engine: options.realPwsh === false ? 'interpreter' : (spec.engine ?? 'real-pwsh') } : {}),
          paths,
          model,
          rebooting: false,
          reboots: 0,
          faults: {},
        });
      });
      await ipBatch(root);
      for (const host of lab.hosts) lab.replaceModel(host.name, host.model);
      await Promise.all(
        lab.hosts.map(async (host, i) => {
          await ipBatch(
            [`link set ${prefix}-p${i + 1} name eth0`, `addr add ${host.address}/24 dev eth0`, 'link set eth0 up', 'link set lo up'],
            host.netns,
          );
          await writeHostFiles(host.paths, {
            name: host.name,
            os: host.os,
            address: host.address,
            clientPublicKey: publicKey,
            passwordHash: hash,
            clientBinary: client,
            socket,
            callers,
            ...(host.model instanceof WindowsHost && host.engine === 'real-pwsh'
              ? { windows: await windowsPwsh(host, host.model, { dir, socket, client, emptyPath, bridge: join(dir, 'pwsh.sock') }) }
              : {}),
            ...(host.model instanceof LinuxHost
              ? {
                  linux: {
                    osRelease: host.model.fs.read('/etc/os-release') ?? '',
                    composeV1: host.model.state.composeV1Version !== undefined,
                  },
                }
              : {}),
          });
          await lab.saveState(host);
          if (host.model instanceof LinuxHost) await writeFile(host.paths.bootId, `${host.model.state.bootId}\n`);
        }),
      );
      await Promise.all(lab.hosts.map((host) => lab.#startSshd(host)));
      return lab;
    } catch (err) {
      await lab.stop();
      throw err;
    }
  }

  /**
   * HTTP between simulated services (Keystone in a Linux host's shim container, the config API) goes over
   * this simulated network: those containers are models, nothing listens on a real port.
   */
  readonly network = new SimNetwork();

  /** Puts a (fresh) model behind a host and on the network. */
  replaceModel(name: string, model: WindowsHost | LinuxHost): void {
    const host = this.host(name);
    host.model = model;
    model.network = this.network;
    if (model instanceof LinuxHost) this.network.attach(host.address, model);
    // A program a simulated service starts (an NSSM service's powershell.exe -File entrypoint.ps1) is the host's
    // own doing, run inside the Start-Service that answers: on the TypeScript interpreter, whichever engine runs
    // what groundcrew sends (real pwsh cannot be started synchronously from the host's answer).
    if (model instanceof WindowsHost) model.runProcess ??= (commandLine) => this.shell.runCommandLine(model, commandLine);
    this.syncPipes(name);
  }

  /** Real listeners for the pipes Windows host `name` serves now (its pwsh's NamedPipeClientStream reaches them). */
  syncPipes(name: string): void {
    this.#pwsh?.syncPipes(name);
  }

  host(name: string): LabHost {
    const host = this.hosts.find((h) => h.name === name);
    if (!host) throw new Error(`lab: no host ${name}`);
    return host;
  }

  windows(name: string): WindowsHost {
    const { model } = this.host(name);
    if (!(model instanceof WindowsHost)) throw new Error(`lab: ${name} is not a Windows host`);
    return model;
  }

  linux(name: string): LinuxHost {
    const { model } = this.host(name);
    if (!(model instanceof LinuxHost)) throw new Error(`lab: ${name} is not a Linux host`);
    return model;
  }

  /** Where the http-bridge of each Linux host hands its requests: the host's model answers (599: nothing there). */
  #listenHttp(path: string): Promise<Server> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
        const outcome = this.network.request(`http://${headers['x-gc-target']}${req.url ?? '/'}`, {
          method: req.method ?? 'GET',
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        if ('error' in outcome) {
          res.writeHead(599).end();
          return;
        }
        res.writeHead(outcome.status, outcome.headers).end(outcome.body);
      });
    });
    return new Promise((resolve) => server.listen(path, () => resolve(server)));
  }

  /**
   * Linux hosts: real listeners for the ports their modelled containers serve (see http-bridge.mjs), listening
   * before this returns. (It used not to wait: a test whose first command was curl to Keystone met "connection
   * refused", curl exit 7, whenever the bridge's Node started slower than sshd, as on a busy machine.)
   */
  async #startHttpBridge(host: LabHost): Promise<void> {
    if (host.os !== 'linux') return;
    const bridge = join(import.meta.dirname, 'http-bridge.mjs');
    const ports = [5000, 8082, 8774];
    const child = spawn(
      'ip',
      ['netns', 'exec', host.netns, process.execPath, bridge, join(this.dir, 'http.sock'), host.address, ...ports.map(String)],
      {
        stdio: 'ignore',
      },
    );
    child.unref();
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`lab: the http-bridge of ${host.name} exited (${code})`))),
    );
    await Promise.race([
      Promise.all(
        ports.map((port) =>
          waitUntil(`lab: the http-bridge of ${host.name} at ${host.address}:${port}`, () => accepts(host.address, port), {
            intervalMs: 20,
          }),
        ),
      ),
      exited,
    ]);
    exited.catch(() => {});
  }

  async #startSshd(host: LabHost): Promise<void> {
    await this.#startHttpBridge(host);
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        host.netns,
        'unshare',
        '--mount',
        '--uts',
        '--propagation',
        'private',
        'sh',
        '-c',
        sshdLaunch(host.paths, host.name, host.os),
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    host.sshd = child;
    await Promise.race([
      waitUntil(`lab: sshd of ${host.name} at ${host.address}:22`, () => accepts(host.address, 22), { intervalMs: 20 }),
      new Promise((_, reject) =>
        child.once('exit', (code) => reject(new Error(`lab: sshd of ${host.name} exited (${code}): ${stderr.trim()}`))),
      ),
    ]);
  }

  /** Persists a host's model (its state survives reboots and is what a test inspects). */
  async saveState(host: LabHost): Promise<void> {
    // A name of its own per save: a command's save and a reboot's can run at once, and with one shared name the
    // second mv found the file gone, rejected inside reboot(), and the host never started sshd again ("did not
    // come back with a new boot id within 20 s", seen in test/ha/leader under load).
    const tmp = `${host.paths.state}.${++this.#saves}.tmp`;
    await writeFile(tmp, JSON.stringify(host.model.state));
    // A rename in this process: `mv` was a process start per saved state, one per docker shim call.
    await rename(tmp, host.paths.state);
  }

  /** Power-cycles a host: every session drops, the boot id changes, sshd returns after rebootMs. */
  async reboot(name: string): Promise<void> {
    const host = this.host(name);
    if (host.rebooting) return;
    host.rebooting = true;
    host.reboots += 1;
    await killAll(host.netns);
    host.model.reboot();
    if (host.model instanceof LinuxHost) await writeFile(host.paths.bootId, `${host.model.state.bootId}\n`);
    await ipBatch(['link del vhost0', 'link del pkt0'], host.netns).catch(() => undefined);
    // What a Linux boot loses: interfaces and routes made at run time (the overlay's bridge, proto 157 routes).
    if (host.os === 'linux') await ipBatch(['route flush proto 157', 'link del gc-overlay'], host.netns).catch(() => undefined);
    await this.saveState(host);
    if (host.faults.neverReturnFromReboot) return;
    await new Promise((r) => setTimeout(r, this.rebootMs));
    if (this.#stopped) return;
    await this.syncInterfaces(host);
    await this.#startSshd(host);
    host.rebooting = false;
  }

  /** Brings back a host that was left down (neverReturnFromReboot): the fault is cleared and it boots. */
  async powerOn(name: string): Promise<void> {
    const host = this.host(name);
    host.faults = { ...host.faults, neverReturnFromReboot: false };
    if (!host.rebooting) return;
    await this.syncInterfaces(host);
    await this.#startSshd(host);
    host.rebooting = false;
  }

  /** Gives a host a new SSH host key (a reinstalled node, or an impostor) and restarts its sshd. */
  async rekey(name: string): Promise<void> {
    const host = this.host(name);
    await killAll(host.netns);
    await rm(host.paths.hostKey, { force: true });
    await rm(`${host.paths.hostKey}.pub`, { force: true });
    await sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', host.paths.hostKey]);
    await this.#startSshd(host);
  }

  /** Makes the kernel interfaces of a Linux host match its model (vhost0 and pkt0 while the agent runs). */
  async syncInterfaces(host: LabHost): Promise<void> {
    if (!(host.model instanceof LinuxHost)) return;
    const wanted = host.model.interfaces();
    const present = (await sh('ip', ['-n', host.netns, '-o', 'link', 'show'])).split('\n').map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1]);
    const lines: string[] = [];
    for (const name of ['vhost0', 'pkt0']) {
      // "dummy" is not built into every kernel these labs run on; an empty bridge is always there.
      if (wanted.includes(name) && !present.includes(name)) lines.push(`link add ${name} type bridge`, `link set ${name} up`);
      if (!wanted.includes(name) && present.includes(name)) lines.push(`link del ${name}`);
    }
    await ipBatch(lines, host.netns);
  }

  async fault(name: string, faults: LabFaults): Promise<void> {
    const host = this.host(name);
    host.faults = { ...host.faults, ...faults };
    if (host.model instanceof WindowsHost) {
      const { failMsi, busyMsi, rebootMsi, failVersions } = host.faults;
      host.model.state.faults = {
        ...(failMsi ? { failMsi } : {}),
        ...(busyMsi ? { busyMsi } : {}),
        ...(rebootMsi ? { rebootMsi } : {}),
        ...(failVersions ? { failVersions } : {}),
      };
    }
    const file = (n: string) => join(host.paths.faults, n);
    if (faults.slowMs !== undefined)
      await (faults.slowMs > 0 ? writeFile(file('slow_ms'), String(faults.slowMs)) : rm(file('slow_ms'), { force: true }));
    if (faults.dropAfterMs !== undefined) await writeFile(file('drop_after_ms'), String(faults.dropAfterMs));
    if (faults.refuseAuth !== undefined) {
      const publicKey = await readFile(`${this.privateKey}.pub`, 'utf8');
      await writeFile(host.paths.authorizedKeys, faults.refuseAuth ? '' : publicKey);
      const hash = faults.refuseAuth ? '!' : await passwordHash(LAB_PASSWORD);
      const shadow = (await readFile(host.paths.shadow, 'utf8')).replace(/^(root|Administrator):[^:]*:/gm, `$1:${hash}:`);
      await writeFile(host.paths.shadow, shadow);
    }
  }

  /** Commands the host received, oldest first (Linux: what sshd ran; Windows: the decoded scripts). */
  async commandLog(name: string): Promise<string[]> {
    const host = this.host(name);
    const text = await readFile(host.paths.commandLog, 'utf8');
    return text.split('\0').filter((c) => c !== '');
  }

  async logCommand(host: LabHost, command: string, caller = '-'): Promise<void> {
    await writeFile(host.paths.commandLog, `${command}\0`, { flag: 'a' });
    await writeFile(host.paths.callLog, `${Date.now()}\t${caller}\t${command}\0`, { flag: 'a' });
  }

  /** The private key of a caller named in `callers`. */
  callerKey(name: string): string {
    return join(this.dir, `id_${name}`);
  }

  /** Commands the host received, oldest first, with when and from which caller. */
  async calls(name: string): Promise<LabCall[]> {
    const text = await readFile(this.host(name).paths.callLog, 'utf8');
    return text
      .split('\0')
      .filter((c) => c !== '')
      .map((record) => {
        const [at = '0', caller = '-', ...rest] = record.split('\t');
        return { at: Number(at), caller, command: rest.join('\t') };
      });
  }

  /** Options for `ssh` (OpenSSH's client) to reach a host, for tests and people poking by hand. */
  sshArgs(name: string): string[] {
    const host = this.host(name);
    return [
      '-i',
      this.privateKey,
      '-o',
      'StrictHostKeyChecking=no',
      '-o',
      'UserKnownHostsFile=/dev/null',
      '-o',
      'LogLevel=ERROR',
      '-o',
      'BatchMode=yes',
      `${host.user}@${host.address}`,
    ];
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#server?.close();
    await this.#pwsh?.close();
    this.#http?.close();
    await teardown(`${this.prefix}-`);
    await rm(this.dir, { recursive: true, force: true });
  }
}
