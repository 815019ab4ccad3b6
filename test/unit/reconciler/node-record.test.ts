// The node record has one owner (node-record.ts): its desired part is replaced whole, its observed part written
// only through the owner's functions, and no other source file assigns a record's field.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { DesiredNode } from '../../../src/reconciler/desired-node.js';
import type { NodeRuntime } from '../../../src/reconciler/node-actors.js';
import { desire, dropRuntime, launched, type NodeHandle, newRecord, noteVersions, runtimeOf } from '../../../src/reconciler/node-record.js';

const desired = (revision: string) => ({ revision, digest: `d-${revision}` }) as unknown as DesiredNode;
const access = { exec: {} } as unknown as NodeRuntime;
const record = () => newRecord({ name: 'n1', desired: desired('r1'), access, log: pino({ level: 'silent' }) });

describe('the node record', () => {
  it('refuses, by the node name, any use of a machine not launched yet', () => {
    const r = record();
    expect(() => r.actor.getSnapshot()).toThrow(/node n1: its machine is not launched yet/);
    const machine = { getSnapshot: () => 'snap' } as unknown as NodeHandle;
    launched(r, machine);
    expect(r.actor).toBe(machine);
  });

  it('replaces the desired part whole: the one it had is left as it was', () => {
    const r = record();
    const before = r.desired;
    desire(r, desired('r2'));
    expect(r.desired.revision).toBe('r2');
    expect(before).toEqual({ revision: 'r1', digest: 'd-r1' });
  });

  it('builds the runtime once per launch, and again after a rest', () => {
    const r = record();
    let built = 0;
    const build = () => {
      built += 1;
      return { exec: {} } as unknown as NodeRuntime;
    };
    const first = runtimeOf(r, build);
    expect(runtimeOf(r, build)).toBe(first);
    dropRuntime(r);
    expect(r.runtime).toBeUndefined();
    expect(runtimeOf(r, build)).not.toBe(first);
    expect(built).toBe(2);
  });

  it('keeps the versions a phase observed', () => {
    const r = record();
    noteVersions(r, { contrail: '5.1.0' });
    expect(r.observed).toEqual({ contrail: '5.1.0' });
  });

  it('is assigned by no source file but its owner', () => {
    const src = join(import.meta.dirname, '../../../src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const writers = files.filter((file) => {
      if (file === join('reconciler', 'node-record.ts')) return false;
      return /\.(desired|actor|runtime|observed)\s*(\?\?|\|\||&&)?=[^=]/.test(readFileSync(join(src, file), 'utf8'));
    });
    expect(files.length).toBeGreaterThan(100);
    expect(writers).toEqual([]);
  });
});
