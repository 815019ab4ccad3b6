// Every node's run reports, kept small at 10,000 nodes: the running one as objects, finished ones packed
// (packed.ts), the newest with the values its resources read and older ones summarized without them.

import type { ResourceOutcome } from '../roles/phase.js';
import type { TestResult } from '../roles/resource.js';
import { type Packed, pack, packedBytes, unpack } from './packed.js';

export interface PhaseReport {
  phase: string;
  resources: ResourceOutcome[];
  commands: number;
  durationMs: number;
  at: string;
}

export interface RunReport {
  node: string;
  revision: string;
  /** Drift fixed on a revision already applied (autocorrect), as opposed to a new commit's change. */
  corrective: boolean;
  startedAt: string;
  finishedAt?: string;
  result?: string;
  phases: PhaseReport[];
}

const REPORTS_LIMIT = 10;

export class RunReports {
  /** The report of a pass still running, per node. */
  readonly #open = new Map<string, RunReport>();
  /** Reports that ended or were left behind, packed, oldest first. */
  readonly #closed = new Map<string, Packed<RunReport>[]>();

  /** Oldest first, the running one last. */
  list(name: string): RunReport[] {
    const closed = (this.#closed.get(name) ?? []).map((p) => unpack(p));
    const open = this.#open.get(name);
    return open ? [...closed, open] : closed;
  }

  /** The phase into the node's current report on `revision`: a new report when the pass is new. */
  add(name: string, revision: string, corrective: boolean, phase: PhaseReport): RunReport {
    let current = this.#open.get(name);
    if (!current || current.revision !== revision || current.corrective !== corrective) {
      const closed = this.#closed.get(name) ?? [];
      // The report before this one loses its values: left unfinished (a new revision came), or the newest ended.
      if (current) closed.push(pack(summarize(current)));
      else if (closed.length > 0) closed.push(pack(summarize(unpack(closed.pop() as Packed<RunReport>))));
      current = { node: name, revision, corrective, startedAt: phase.at, phases: [] };
      this.#open.set(name, current);
      if (closed.length + 1 > REPORTS_LIMIT) closed.splice(0, closed.length + 1 - REPORTS_LIMIT);
      this.#closed.set(name, closed);
    }
    current.phases.push(phase);
    return current;
  }

  /** Ends the node's running report with how the pass ended, and packs it; undefined when none runs. */
  finish(name: string, result: string, at: string): RunReport | undefined {
    const current = this.#open.get(name);
    if (!current) return undefined;
    current.finishedAt = at;
    current.result = result;
    this.#open.delete(name);
    const closed = this.#closed.get(name) ?? [];
    closed.push(pack(current));
    this.#closed.set(name, closed);
    return current;
  }

  /** The node's finished reports as kept (raw deflate of each one's JSON, oldest first), and the running one. */
  packed(name: string): { finished: Buffer[]; running?: RunReport } {
    const finished = (this.#closed.get(name) ?? []).map((p) => packedBytes(p));
    const running = this.#open.get(name);
    return running ? { finished, running } : { finished };
  }

  /**
   * The node's reports replaced by `reports` (oldest first; another member's, taken over): the last
   * REPORTS_LIMIT, all but the newest summarized; an unfinished newest one is the pass this member resumes.
   */
  restore(name: string, reports: readonly RunReport[]): void {
    const last = reports.slice(-REPORTS_LIMIT);
    const newest = last.at(-1);
    const running = newest && newest.finishedAt === undefined ? newest : undefined;
    const finished = running ? last.slice(0, -1) : last;
    this.#closed.set(
      name,
      finished.map((r, i) => pack(i === finished.length - 1 && !running ? r : summarize(r))),
    );
    if (running) this.#open.set(name, { ...running, phases: [...running.phases] });
    else this.#open.delete(name);
  }

  has(name: string): boolean {
    return this.#open.has(name) || this.#closed.has(name);
  }

  forget(name: string): void {
    this.#open.delete(name);
    this.#closed.delete(name);
  }
}

/**
 * An older run report keeps what each resource was (status, what differed, errors, times) but not the values
 * read (`actual`, `desired`: file contents, command output): a node's newest report has them. At 10,000 nodes
 * with ten reports each, those values were most of the daemon's memory.
 */
function summarize(report: RunReport): RunReport {
  const kept = (t: TestResult): TestResult => ({ inDesiredState: t.inDesiredState, differingProperties: t.differingProperties });
  return {
    ...report,
    phases: report.phases.map((phase) => ({
      ...phase,
      resources: phase.resources.map((r) => ({ ...r, before: kept(r.before), ...(r.after ? { after: kept(r.after) } : {}) })),
    })),
  };
}
