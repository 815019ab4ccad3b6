// Role parsers against captured tool output (see test/fixtures/ORIGIN.md for where each came from).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MSI_EXIT, msiOutcome } from '../../../../src/roles/windows/msi.js';
import {
  parseBcdTestSigning,
  parseMsiPackages,
  parsePortProxies,
  parseScFailure,
  parseScQc,
  parseVifList,
} from '../../../../src/roles/windows/parsers.js';

const fixture = (path: string) => readFileSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', path), 'utf8');

describe('parseBcdTestSigning', () => {
  const off = fixture('windows/bcdedit-win10.txt');
  const on = off.replace('nx                      OptIn', 'testsigning             Yes\nnx                      OptIn');

  it('reads a real bcdedit listing: debug is on, test signing is not', () => {
    expect(parseBcdTestSigning(off)).toBe(false);
    expect(parseBcdTestSigning(off.split('\n'))).toBe(false);
  });

  it('sees the testsigning line when it is there, as lines (what PowerShell captures) or text', () => {
    expect(parseBcdTestSigning(on)).toBe(true);
    expect(parseBcdTestSigning(on.split('\n'))).toBe(true);
    expect(parseBcdTestSigning(on.replace('testsigning             Yes', 'testsigning             No'))).toBe(false);
    expect(parseBcdTestSigning(null)).toBe(false);
  });
});

describe('MSI exit codes', () => {
  it('0 and 3010/1641 succeed, 3010/1641 asking for a reboot; 1605 is fine only for uninstall', () => {
    expect(msiOutcome('install', MSI_EXIT.SUCCESS, 'x', '')).toEqual({ rebootRequested: false });
    expect(msiOutcome('install', MSI_EXIT.REBOOT_REQUIRED, 'x', '')).toEqual({ rebootRequested: true });
    expect(msiOutcome('install', MSI_EXIT.REBOOT_INITIATED, 'x', '')).toEqual({ rebootRequested: true });
    expect(msiOutcome('uninstall', MSI_EXIT.UNKNOWN_PRODUCT, 'x', '')).toEqual({ rebootRequested: false });
    expect(() => msiOutcome('install', MSI_EXIT.UNKNOWN_PRODUCT, 'x', 'tail')).toThrow(expect.objectContaining({ code: 'GC_MSI_FAILED' }));
  });

  it('1618 is retryable, 1603 terminal with the log tail', () => {
    expect(() => msiOutcome('install', MSI_EXIT.BUSY, 'installing vRouter', '')).toThrow(
      expect.objectContaining({ code: 'GC_MSI_BUSY', retryable: true }),
    );
    expect(() =>
      msiOutcome('install', MSI_EXIT.INSTALL_FAILURE, 'installing vRouter', 'Error 1920. Service vRouter failed to start'),
    ).toThrow(
      expect.objectContaining({
        code: 'GC_MSI_FAILED',
        retryable: false,
        message: expect.stringContaining('Error 1920. Service vRouter failed to start'),
      }),
    );
  });
});

describe('parseMsiPackages', () => {
  it('takes one package or a list, as ConvertTo-Json gives either', () => {
    const one = { Name: 'vRouter', Version: '1.0.0', FastPackageReference: '{CB877445-6E69-4BA8-9C8F-DDA1C92539B3}' };
    expect(parseMsiPackages(one)).toEqual([{ name: 'vRouter', version: '1.0.0', productCode: '{CB877445-6E69-4BA8-9C8F-DDA1C92539B3}' }]);
    expect(parseMsiPackages([one, one])).toHaveLength(2);
    expect(parseMsiPackages(null)).toEqual([]);
  });
});

describe('Windows service and portproxy parsers (composed fixtures: see ORIGIN.md)', () => {
  it('sc.exe qc: binary path, start type, every dependency', () => {
    expect(parseScQc(fixture('windows/sc-qc-kubelet.txt').split(/\r?\n/))).toEqual({
      binaryPath: 'C:\\k\\kubelet.exe --windows-service --config=C:\\k\\kubelet-config.yaml',
      startType: 'AUTO_START',
      dependencies: ['containerd', 'hns'],
    });
    expect(parseScQc(['[SC] OpenService FAILED 1060:', '', 'The specified service does not exist as an installed service.'])).toBeNull();
  });

  it('sc.exe qfailure: reset period and the actions in sc failure syntax', () => {
    expect(parseScFailure(fixture('windows/sc-qfailure-kubelet.txt').split(/\r?\n/))).toEqual({
      resetSeconds: 86400,
      actions: 'restart/10000/restart/10000/restart/30000',
    });
  });

  it('netsh portproxy show v4tov4: one rule per row, nothing for an empty table', () => {
    expect(parsePortProxies(fixture('windows/netsh-portproxy-v4tov4.txt').split(/\r?\n/))).toEqual([
      { listenAddress: '0.0.0.0', listenPort: 8080, connectAddress: '10.42.1.10', connectPort: 80 },
      { listenAddress: '*', listenPort: 2222, connectAddress: '10.42.1.11', connectPort: 22 },
    ]);
    expect(parsePortProxies([''])).toEqual([]);
  });
});

describe('parseVifList', () => {
  it('reads the real tool: each vif with how it is attached, its name and Type', () => {
    const vifs = parseVifList(fixture('windows/vif-list-vtest.txt'));
    expect(vifs).toEqual([
      { vif: 'vif0/0', attach: 'PCI', name: 'Mock', type: 'Physical' },
      { vif: 'vif0/1', attach: 'PMD', name: 'vhost0', type: 'Host' },
      { vif: 'vif0/2', attach: 'Socket', name: 'unix', type: 'Agent' },
      { vif: 'vif0/3', attach: 'PMD', name: 'tape703ea67-f1', type: 'Virtual' },
    ]);
    // A name is matched whole: the diagnostic check's ifName must not match inside another name.
    expect(vifs.some((v) => v.name === 'vhost')).toBe(false);
  });

  it('reads it as PowerShell hands it over (one line per item) and finds nothing in an error', () => {
    expect(parseVifList(fixture('windows/vif-list-vtest.txt').split('\n'))).toHaveLength(4);
    expect(parseVifList(null)).toEqual([]);
  });
});
