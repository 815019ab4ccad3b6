// node-powershell drives the simulated Windows host through the pwsh-compatible process (NODE_POWERSHELL).

import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PowerShell } from 'node-powershell';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..');
let shell: PowerShell;
let state: string;

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-pwsh-'));
  state = join(dir, 'state.json');
  const wrapper = join(dir, 'pwsh');
  // NODE_POWERSHELL names one executable; this wrapper starts the simulator built by the global setup.
  writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist/src/sim/windows/pwsh-sim.js')}" "$@"\n`);
  chmodSync(wrapper, 0o755);
  process.env.NODE_POWERSHELL = wrapper;
  process.env.GC_SIM_STATE = state;
  shell = new PowerShell({ debug: false });
});

afterAll(async () => {
  await shell?.dispose();
  delete process.env.NODE_POWERSHELL;
  delete process.env.GC_SIM_STATE;
});

describe('the pwsh-compatible simulator under node-powershell', () => {
  it('answers invocations on one persistent process, keeping the host state between them', async () => {
    const first = await shell.invoke("Install-WindowsFeature -Name 'Containers' | ConvertTo-Json -Compress");
    expect(first.hadErrors).toBe(false);
    expect(JSON.parse(first.raw)).toMatchObject({ Success: true, RestartNeeded: 'Yes' });
    const second = await shell.invoke("(Get-WindowsFeature -Name 'Containers').InstallState.ToString()");
    expect(second.raw).toBe('InstallPending');
    expect(JSON.parse(readFileSync(state, 'utf8')).features.Containers).toBe('InstallPending');
  });

  it('takes multi-line scripts between the delimiters', async () => {
    const r = await shell.invoke("$a = 'multi'\n$b = 'line'\n\"$a-$b\"");
    expect(r.raw).toBe('multi-line');
  });

  it('reports errors on stderr, which node-powershell turns into a failed invocation', async () => {
    await expect(shell.invoke('Get-Servic')).rejects.toThrow(/'Get-Servic' is not recognized/);
  });
});
