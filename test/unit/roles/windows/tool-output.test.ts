// The roles' parsers on what the real tools print, and the simulator held to the same shape: each real output
// (test/fixtures/ORIGIN.md says where each came from) and the simulator's answer to the same command are read
// with the same parser, and their layouts compared line for line where the roles depend on it.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { windowsKubelet } from '../../../../src/roles/windows/kubelet.js';
import {
  parseBcdTestSigning,
  parseNetworkIds,
  parsePortProxies,
  parseScFailure,
  parseScQc,
} from '../../../../src/roles/windows/parsers.js';
import { chocolateyPackages } from '../../../../src/roles/windows/prereqs-tools.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { WindowsShell } from '../../../../src/sim/windows/windows-shell.js';
import { kubeletInput, WINDOWS_DOCKER_INSTALL } from '../../../support/inputs.js';

const fixture = (path: string) => readFileSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', path), 'utf8');
/** As PowerShell hands a native program's output over: one string a line, without the line ends. */
const lines = (text: string) => text.split(/\r?\n/);

let shell: WindowsShell;
beforeAll(async () => {
  shell = await WindowsShell.create();
});

function run(host: WindowsHost, script: string): string {
  const r = shell.runScript(host, script);
  if (r.exitCode !== 0) throw new Error(`script failed (${r.exitCode}):\n${script}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** The field names of `sc.exe qc` in order (`TYPE`, `START_TYPE`, ...), the layout the parser relies on. */
const scFields = (text: string) => lines(text).flatMap((l) => /^ {8}([A-Z_]+)\s+:/.exec(l)?.[1] ?? []);

describe('sc.exe qc, as Windows prints it', () => {
  it('reads a delayed automatic start as AUTO_START, and a quoted binary path whole', () => {
    // A delayed start prints `2   AUTO_START  (DELAYED)`: the start type is the name after the code, not the last word.
    expect(parseScQc(lines(fixture('windows/sc-qc-sense-delayed.txt')))).toEqual({
      binaryPath: '"C:\\Program Files\\Windows Defender Advanced Threat Protection\\MsSense.exe"',
      startType: 'AUTO_START',
      dependencies: [],
    });
    expect(parseScQc(lines(fixture('windows/sc-qc-appreadiness.txt')))).toEqual({
      binaryPath: 'C:\\Windows\\System32\\svchost.exe -k AppReadiness -p',
      startType: 'DEMAND_START',
      dependencies: [],
    });
  });

  it('the simulator prints the same fields in the same order, and the parser reads it alike', () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    run(host, "New-Service -Name 'kubelet' -BinaryPathName 'C:\\k\\kubelet.exe --windows-service' -StartupType Automatic | Out-Null");
    run(host, 'sc.exe config kubelet start= demand depend= containerd/hns | Out-Null');
    const sim = run(host, 'sc.exe qc kubelet');
    expect(scFields(sim)).toEqual(scFields(fixture('windows/sc-qc-appreadiness.txt')));
    expect(lines(sim).slice(0, 3)).toEqual(lines(fixture('windows/sc-qc-appreadiness.txt')).slice(0, 2).concat('SERVICE_NAME: kubelet'));
    expect(parseScQc(lines(sim))).toEqual({
      binaryPath: 'C:\\k\\kubelet.exe --windows-service',
      startType: 'DEMAND_START',
      dependencies: ['containerd', 'hns'],
    });
  });

  it('a service that does not exist is no configuration, in the real wording and the simulator', () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const r = shell.runScript(host, 'sc.exe qc nosuch\nexit $LASTEXITCODE');
    expect(r.exitCode).toBe(1060);
    expect(r.stdout).toContain('[SC] OpenService FAILED 1060:');
    expect(parseScQc(lines(r.stdout))).toBeNull();
  });

  it('sc.exe qfailure from the simulator reads back as the actions sc.exe failure was given', () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    run(host, "New-Service -Name 'kubelet' -BinaryPathName 'C:\\k\\kubelet.exe' -StartupType Automatic | Out-Null");
    run(host, 'sc.exe failure kubelet reset= 86400 actions= restart/10000/restart/30000 | Out-Null');
    const sim = run(host, 'sc.exe qfailure kubelet');
    expect(parseScFailure(lines(sim))).toEqual({ resetSeconds: 86400, actions: 'restart/10000/restart/30000' });
    // The layout of the composed fixture (ORIGIN.md): the same lines but for the values.
    const shape = (t: string) => lines(t).map((l) => l.replace(/: .*$/, ':').replace(/\d+/g, 'N'));
    expect(shape(sim).slice(0, 6)).toEqual(shape(fixture('windows/sc-qfailure-kubelet.txt')).slice(0, 6));
  });
});

describe('netsh interface portproxy show v4tov4, as Windows prints it', () => {
  it('reads the real table', () => {
    expect(parsePortProxies(lines(fixture('windows/netsh-portproxy-show-v4tov4-real.txt')))).toEqual([
      { listenAddress: '10.129.42.198', listenPort: 8080, connectAddress: '172.16.5.25', connectPort: 3389 },
    ]);
  });

  it('the simulator prints the same header lines, and its rows read back as added', () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    run(
      host,
      'netsh interface portproxy add v4tov4 listenport=8080 listenaddress=10.129.42.198 connectport=3389 connectaddress=172.16.5.25',
    );
    const sim = run(host, 'netsh interface portproxy show v4tov4');
    const real = fixture('windows/netsh-portproxy-show-v4tov4-real.txt');
    const header = (t: string) => lines(t).slice(0, 5);
    expect(header(sim)).toEqual(header(real));
    expect(parsePortProxies(lines(sim))).toEqual(parsePortProxies(lines(real)));
  });
});

describe('docker network ls, as the Docker CLI prints it', () => {
  const ids = (table: string) =>
    lines(table)
      .slice(1)
      .filter(Boolean)
      .map((l) => l.split(/\s+/)[0]);

  it('network IDs are 12 hex digits (the table of docker/cli network_ls.md); anything else is refused loudly', () => {
    for (const table of ['windows/docker-network-ls.txt', 'windows/docker-network-ls-filter-driver.txt'])
      expect(parseNetworkIds(ids(fixture(table)))).toEqual(ids(fixture(table)));
    expect(parseNetworkIds(null)).toEqual([]);
    expect(() => parseNetworkIds(['error during connect: open //./pipe/docker_engine'])).toThrow(
      expect.objectContaining({ code: 'GC_FACTS_FAILED' }),
    );
    // A full ID (what --no-trunc prints) is not what the check compares HNS names with.
    expect(() => parseNetworkIds(['18a2866682b85619a026c81b98a5e375bd33e1b0936a26cc497c283d27bae9b3'])).toThrow(/not a network ID/);
  });

  it('the simulator prints the same header, IDs the same way, and --quiet the IDs column', () => {
    // Docker as the prereqs phase installs it (windows-rules.test.ts does the same).
    const host = WindowsHost.fresh({ hostname: 'win1', features: ['Containers', 'Hyper-V'] });
    run(host, WINDOWS_DOCKER_INSTALL.join('\n'));
    const table = { stdout: run(host, 'docker network ls') };
    expect(lines(table.stdout)[0]?.replace(/\s+/g, ' ')).toBe(lines(fixture('windows/docker-network-ls.txt'))[0]?.replace(/\s+/g, ' '));
    const quiet = run(host, 'docker network ls --quiet');
    expect(parseNetworkIds(lines(quiet))).toEqual(ids(table.stdout));
    expect(ids(table.stdout).length).toBeGreaterThan(0);
  });
});

describe('choco list --local-only --limit-output (name|version lines; no capture here, see ORIGIN.md)', () => {
  const choco = chocolateyPackages();
  const read = (packages: string[]) =>
    choco.test(new Map<string, unknown>([['choco', { version: '0.10.11', packages, enhancedExitCodes: null }]]));
  const others = ['nssm|2.24.101', 'vcredist2013|12.0.40664', 'vcredist140|14.16.27027', 'vcpython27|9.0.30729.6161'];

  it('a pinned package is compared by the version installed, the others by being there', () => {
    expect(read(['python2|2.7.13', ...others]).inDesiredState).toBe(true);
    // python2 3.x where c-a-d pins 2.7.13: a difference (it used to read as 2.7.13 whatever was installed).
    expect(read(['python2|3.11.0', ...others])).toMatchObject({
      inDesiredState: false,
      differingProperties: ['python2'],
      actual: { python2: '3.11.0', nssm: 'any', vcredist140: 'any' },
    });
    expect(read(['nssm|2.24.101']).differingProperties).toEqual(['python2', 'vcredist2013', 'vcredist140', 'vcpython27']);
  });

  it('what the simulator lists after the installs reads as installed', () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    run(host, "& 'C:\\ProgramData\\chocolatey\\bin\\choco.exe' install python2 -y --no-progress --version 2.7.13 | Out-Null");
    run(host, "& 'C:\\ProgramData\\chocolatey\\bin\\choco.exe' install nssm -y --no-progress | Out-Null");
    run(host, "& 'C:\\ProgramData\\chocolatey\\bin\\choco.exe' install vcredist140 -y --no-progress | Out-Null");
    run(host, "& 'C:\\ProgramData\\chocolatey\\bin\\choco.exe' install vcredist2013 -y --no-progress | Out-Null");
    run(host, "& 'C:\\ProgramData\\chocolatey\\bin\\choco.exe' install vcpython27 -y --no-progress | Out-Null");
    const listed = run(host, "& 'C:\\ProgramData\\chocolatey\\bin\\choco.exe' list --local-only --limit-output");
    expect(read(lines(listed).filter(Boolean)).inDesiredState).toBe(true);
  });
});

describe('whoami /groups, as Windows prints it', () => {
  // The roles' check (roles/windows/queries.ts ELEVATED) joins the lines and looks for the High label's SID.
  const elevated = (text: string) => lines(text).join(' ').includes('S-1-16-12288');
  /** The section's header and the columns of its table: what the simulator must print alike. */
  const header = (text: string) => [
    ...lines(text).slice(0, 4),
    lines(text)[4]
      ?.trim()
      .split(/\s{2,}/)
      .join('|'),
  ];

  it('the real elevated token carries the High Mandatory Level label; the simulator prints the same section', () => {
    const real = fixture('windows/whoami-groups-high.txt');
    expect(elevated(real)).toBe(true);
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const sim = run(host, 'whoami /groups');
    expect(header(sim)).toEqual(header(real));
    expect(header(sim)[4]).toBe('Group Name|Type|SID|Attributes');
    expect(elevated(sim)).toBe(true);
    host.state.elevated = false;
    expect(elevated(run(host, 'whoami /groups'))).toBe(false);
  });
});

describe('kubelet --version, as the kubelet prints it', () => {
  // Real output, quoted in public setup notes found through the code index (repository not named there):
  // `root@srv001:~# kubelet --version` answered `Kubernetes v1.29.6`.
  const REAL = 'Kubernetes v1.29.6';
  const kubeletRunning = (version: string) => {
    const resource = windowsKubelet(kubeletInput(version), 'win1').resources.find((r) => r.name === 'kubelet/running');
    if (!resource) throw new Error('no kubelet/running resource');
    return resource;
  };
  const version = (v: string, reported: string | null) =>
    kubeletRunning(v).test(
      new Map<string, unknown>([
        ['k8s.status', 'Running'],
        ['k8s.version', reported],
      ]),
    );

  it('the real line is the version the role wants, with or without the v in the inventory', () => {
    expect(version('v1.29.6', REAL).inDesiredState).toBe(true);
    expect(version('1.29.6', REAL).inDesiredState).toBe(true);
    expect(version('1.29.4', REAL).differingProperties).toEqual(['Version']);
  });

  it('the simulated kubelet.exe prints the same line', () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    host.fs.put('C:\\k\\kubelet.exe', 'groundcrew-sim kubelet v1.29.6');
    expect(run(host, "@(& 'C:\\k\\kubelet.exe' --version) -join ' '").trim()).toBe(REAL);
  });
});

describe('bcdedit /enum, as Windows prints it', () => {
  /** Each `key   value` line: its key and the column its value starts at. */
  const entries = (text: string) =>
    lines(text).flatMap((l) => {
      const m = /^([a-z]+)(\s+)\S/.exec(l);
      return m ? [{ key: m[1] as string, column: (m[1] as string).length + (m[2] as string).length }] : [];
    });

  it("the simulator's boot loader entry has the real listing's keys, values in the same column; test signing reads alike", () => {
    const real = fixture('windows/bcdedit-win10.txt');
    const realKeys = new Set(entries(real).map((e) => e.key));
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const off = run(host, "bcdedit /enum '{current}'");
    // testsigning is the one key the real listing lacks: it prints it only when set (ORIGIN.md).
    expect(entries(off).filter((e) => !realKeys.has(e.key))).toEqual([]);
    expect(new Set(entries(off).map((e) => e.column))).toEqual(new Set(entries(real).map((e) => e.column)));
    expect(parseBcdTestSigning(lines(off))).toBe(false);
    run(host, "bcdedit /set '{current}' testsigning on | Out-Null");
    const on = run(host, "bcdedit /enum '{current}'");
    expect(
      entries(on)
        .filter((e) => !realKeys.has(e.key))
        .map((e) => e.key),
    ).toEqual(['testsigning']);
    expect(parseBcdTestSigning(lines(on))).toBe(true);
  });
});
