// The fenced executor (cluster mode's fence, the snapshot's flush): a command goes out only past its fence, and a
// refusal is a command never sent (errors.ts `sent`), whatever the fence threw.

import { describe, expect, it } from 'vitest';
import type { CommandResult, Executor } from '../../../src/dataplane/executor.js';
import { FencedExecutor } from '../../../src/dataplane/fenced-executor.js';
import { errors, neverSent } from '../../../src/errors.js';

const OK: CommandResult = { exitCode: 0, stdout: 'ok', stderr: '', durationMs: 0 };

function counting(): Executor & { runs: number } {
  const exec = {
    os: 'windows' as const,
    runs: 0,
    run: async () => {
      exec.runs++;
      return OK;
    },
    close: async () => undefined,
  };
  return exec;
}

describe('FencedExecutor', () => {
  it('runs a command once its guard settles, and only then', async () => {
    const inner = counting();
    let open: () => void = () => undefined;
    const guard = new Promise<void>((resolve) => {
      open = resolve;
    });
    const exec = new FencedExecutor(inner, () => guard);
    expect(exec.os).toBe('windows');
    const pending = exec.run({ script: 'Restart-Computer -Force' }, { timeoutMs: 1000 });
    await new Promise((r) => setTimeout(r, 20));
    expect(inner.runs).toBe(0);
    open();
    expect(await pending).toEqual(OK);
    expect(inner.runs).toBe(1);
  });

  it("a guard's refusal keeps its code and is marked never sent; the command does not run", async () => {
    const inner = counting();
    const fenced = new FencedExecutor(inner, async () => {
      throw errors.GC_CLUSTER_FENCED('win1: member m1 does not own it');
    });
    const refusal = await fenced.run({ script: 'Restart-Computer -Force', label: 'reboot' }, { timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ code: 'GC_CLUSTER_FENCED', retryable: true, sent: false, message: 'win1: member m1 does not own it' });
    expect(neverSent(refusal)).toBe(true);
    expect(inner.runs).toBe(0);
  });

  it('a guard failing without a code is GC_INTERNAL, never sent, naming the command', async () => {
    const inner = counting();
    const broken = new FencedExecutor(inner, async () => {
      throw new Error('etcd client closed');
    });
    await expect(broken.run({ script: 'true', label: 'boot id' }, { timeoutMs: 1000 })).rejects.toMatchObject({
      code: 'GC_INTERNAL',
      sent: false,
      message: 'the fence before command (boot id) failed: etcd client closed',
    });
    expect(inner.runs).toBe(0);
  });

  it("the inner executor's errors pass through as they are: a lost answer stays sent", async () => {
    const lost = Object.assign(errors.GC_CONNECTION_LOST('the connection dropped while a command (reboot) ran'), { sent: true });
    const inner: Executor = { os: 'linux', run: async () => Promise.reject(lost), close: async () => undefined };
    const exec = new FencedExecutor(inner, async () => undefined);
    await expect(exec.run({ script: 'reboot' }, { timeoutMs: 1000 })).rejects.toBe(lost);
    expect(neverSent(lost)).toBe(false);
  });
});
