// A phase: an ordered list of resources, tested on facts gathered in one round trip, set in order.

import type { Executor } from '../dataplane/executor.js';
import { errors, GroundcrewError } from '../errors.js';
import { gatherFacts, oncePerId } from './facts.js';
import { ReadAfterExecutor, setFailed } from './read-after.js';
import { CHANGED, type Facts, type Resource, type SetResult, type TestResult } from './resource.js';

export interface Phase {
  name: string;
  resources: Resource[];
}

export type ResourceStatus = 'ok' | 'changed' | 'failed' | 'skipped';

export interface ResourceOutcome {
  resource: string;
  status: ResourceStatus;
  before: TestResult;
  after?: TestResult;
  rebootRequested: boolean;
  error?: { code: string; message: string; retryable: boolean };
  durationMs: number;
}

export interface PhaseOutcome {
  phase: string;
  inDesiredState: boolean;
  rebootRequested: boolean;
  resources: ResourceOutcome[];
  /** Commands this pass sent, fact reads included: a converged phase costs exactly one. */
  commands: number;
  durationMs: number;
  /** What stopped the pass: a resource's set failed, or it still differed after it. */
  failure?: GroundcrewError;
}

export interface PhaseOptions {
  signal?: AbortSignal;
  /** Test only: report what differs, change nothing (monitor mode, `groundcrew plan`). */
  dryRun?: boolean;
  /** Called before a disruptive resource is set (the disruption budget waits here); throwing stops the phase. */
  beforeDisruptive?: (resource: string) => Promise<void>;
}

/** Counts the commands a phase sends, so a converged pass can prove it only read. */
class CountingExecutor implements Executor {
  count = 0;
  constructor(private readonly inner: Executor) {}
  get os() {
    return this.inner.os;
  }
  run(...args: Parameters<Executor['run']>) {
    this.count++;
    return this.inner.run(...args);
  }
  close() {
    return this.inner.close();
  }
}

export async function testPhase(
  exec: Executor,
  phase: Phase,
  opts: PhaseOptions = {},
): Promise<{ facts: Facts; results: Map<string, TestResult> }> {
  const secrets = phase.resources.map((r) => r.factsStdin).filter((v): v is string => v !== undefined);
  if (secrets.length > 1) throw new Error(`phase ${phase.name}: only one resource may send a secret with its facts`);
  const facts = await gatherFacts(
    exec,
    phase.resources.flatMap((r) => r.facts),
    {
      label: phase.name,
      signal: opts.signal,
      stdin: secrets[0],
    },
  );
  return { facts, results: new Map(phase.resources.map((r) => [r.name, r.test(facts)])) };
}

export interface PhaseTest {
  phase: string;
  inDesiredState: boolean;
  results: Map<string, TestResult>;
}

/**
 * Every phase tested against one read of the node (all their facts in one command): the cheapest way to
 * ask "is this node still right?" (a no-op re-verify, `plan` against observed facts). Changes nothing.
 * Fact queries with one id must be the same query; secrets are sent as in testPhase (at most one).
 */
export async function testPhases(exec: Executor, phases: Phase[], opts: PhaseOptions = {}): Promise<PhaseTest[]> {
  const queries = oncePerId(phases.flatMap((p) => p.resources.flatMap((r) => r.facts)));
  const secrets = [...new Set(phases.flatMap((p) => p.resources.map((r) => r.factsStdin)).filter((v): v is string => v !== undefined))];
  if (secrets.length > 1) throw new Error('only one resource may send a secret with its facts');
  let facts: Facts;
  try {
    facts = await gatherFacts(exec, queries, {
      label: phases.map((p) => p.name).join('+'),
      signal: opts.signal,
      stdin: secrets[0],
    });
  } catch (err) {
    // Every phase's facts in one script can outgrow a Windows command line (-EncodedCommand, 32,000 characters);
    // the wire refuses it before anything is sent, and each phase is read on its own instead, as a pass reads it.
    if (!(err instanceof GroundcrewError && err.code === errors.GC_COMMAND_TOO_LONG.code) || phases.length < 2) throw err;
    const each: PhaseTest[] = [];
    for (const phase of phases) each.push(...(await testPhases(exec, [phase], opts)));
    return each;
  }
  return phases.map((p) => {
    const results = new Map(p.resources.map((r) => [r.name, r.test(facts)]));
    return { phase: p.name, inDesiredState: [...results.values()].every((t) => t.inDesiredState), results };
  });
}

/**
 * test, then set what differs, in order. After a set the facts are read again before the next resource
 * is tested (a set may change what the next one sees). Once a resource asks for a reboot, only resources
 * that share it (sharesReboot) still run; the rest wait for the node to come back. Requests are batched.
 * A resource that fails ends the pass: the outcome says so in `failure`, with what was done up to it.
 * Errors reading the node (connection, facts) are thrown.
 */
export async function passPhase(executor: Executor, phase: Phase, opts: PhaseOptions = {}): Promise<PhaseOutcome> {
  const exec = new CountingExecutor(executor);
  const began = performance.now();
  const outcomes: ResourceOutcome[] = [];
  let { facts } = await testPhase(exec, phase, opts);
  let rebootRequested = false;
  let stale = false;
  // Whether `facts` were read after the last command sent: the final re-test then needs no command of its own.
  let fresh = true;
  // A set's one command also reads the phase's facts (read-after.ts), unless they need a secret on stdin.
  const readAfter = phase.resources.some((r) => r.factsStdin !== undefined)
    ? undefined
    : { queries: oncePerId(phase.resources.flatMap((r) => r.facts)), label: phase.name };
  const ended = (failure?: GroundcrewError): PhaseOutcome => ({
    phase: phase.name,
    inDesiredState: !failure && outcomes.every((o) => o.status === 'ok' || (o.status === 'changed' && !o.rebootRequested)),
    rebootRequested,
    resources: outcomes,
    commands: exec.count,
    durationMs: performance.now() - began,
    ...(failure ? { failure } : {}),
  });
  for (const [index, resource] of phase.resources.entries()) {
    const started = performance.now();
    if (rebootRequested && !resource.sharesReboot) {
      outcomes.push({
        resource: resource.name,
        status: 'skipped',
        before: { inDesiredState: false, differingProperties: ['waiting for reboot'] },
        rebootRequested: false,
        durationMs: 0,
      });
      continue;
    }
    if (stale) {
      // One read for everything still to come, not one per resource.
      facts = (await testPhase(exec, { name: phase.name, resources: phase.resources.slice(index) }, opts)).facts;
      stale = false;
      fresh = false;
    }
    const before = resource.test(facts);
    if (before.inDesiredState || opts.dryRun) {
      outcomes.push({
        resource: resource.name,
        status: before.inDesiredState ? 'ok' : 'skipped',
        before,
        rebootRequested: false,
        durationMs: performance.now() - started,
      });
      continue;
    }
    try {
      if (resource.disruptive) await opts.beforeDisruptive?.(resource.name);
      const setExec = readAfter ? new ReadAfterExecutor(exec, readAfter) : exec;
      const result = await resource.set({ exec: setExec, facts, signal: opts.signal });
      const readWithIt = setExec instanceof ReadAfterExecutor ? setExec.facts : undefined;
      if (readWithIt) [facts, stale, fresh] = [readWithIt, false, true];
      else [stale, fresh] = [result.changed, fresh && !result.changed];
      rebootRequested ||= result.rebootRequested;
      outcomes.push({
        resource: resource.name,
        status: result.changed ? 'changed' : 'ok',
        before,
        rebootRequested: result.rebootRequested,
        durationMs: performance.now() - started,
      });
    } catch (err) {
      const e = err instanceof GroundcrewError ? err : errors.GC_SET_FAILED(`${resource.name}: ${(err as Error).message}`, err);
      outcomes.push({
        resource: resource.name,
        status: 'failed',
        before,
        rebootRequested: false,
        error: { code: e.code, message: e.message, retryable: e.retryable },
        durationMs: performance.now() - started,
      });
      return ended(e);
    }
  }
  // Everything set is tested again: a resource that still differs without a pending reboot is an error.
  const changed = outcomes.filter((o) => o.status === 'changed' && !o.rebootRequested);
  if (changed.length > 0) {
    const again = phase.resources.filter((r) => changed.some((c) => c.resource === r.name));
    const results = fresh
      ? new Map(again.map((r) => [r.name, r.test(facts)]))
      : (await testPhase(exec, { name: phase.name, resources: again }, opts)).results;
    for (const o of changed) {
      o.after = results.get(o.resource);
      if (o.after && !o.after.inDesiredState) {
        const e = errors.GC_STILL_DIFFERENT(`${o.resource} still differs after it was set: ${o.after.differingProperties.join(', ')}`);
        o.status = 'failed';
        o.error = { code: e.code, message: e.message, retryable: e.retryable };
        return ended(e);
      }
    }
  }
  return ended();
}

/** Runs a command that changes the node; a non-zero exit is GC_SET_FAILED with what it said. */
export async function change(
  exec: Executor,
  script: string,
  label: string,
  opts: { signal?: AbortSignal; timeoutMs?: number; stdin?: string } = {},
): Promise<string> {
  const r = await exec.run({ script, label }, { ...opts, timeoutMs: opts.timeoutMs ?? 300_000 });
  if (r.exitCode !== 0) throw setFailed(label, r);
  return r.stdout;
}

/**
 * The last command of a set, as `change`: in a pass the phase's facts are read in the same command (read-after.ts),
 * so the next resource is tested without another round trip. Nothing may be sent after it in the same set.
 */
export async function changeLast(...args: Parameters<typeof change>): Promise<string> {
  const [exec, script, label, opts = {}] = args;
  return exec instanceof ReadAfterExecutor ? exec.setAndRead(script, label, opts) : change(...args);
}

/** The usual end of a set: one command that changes the node (changeLast), then "changed". */
export async function setByCommand(...args: Parameters<typeof change>): Promise<SetResult> {
  await changeLast(...args);
  return CHANGED;
}
