// Revision intake: each revision a source finds is validated whole (with the daemon's secrets merged in)
// before any node sees it. A bad one is recorded and leaves the last good one in force; at start, with
// nothing in force yet, the last good revision is read again from the source's object database, as any revision
// is (never a checkout: a .gitattributes would change the bytes read), and a failure to is said, not kept silent.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { errors } from '../errors.js';
import type { DesiredState } from '../inventory/desired-state.js';
import { formatDiagnostic } from '../inventory/diagnostic.js';
import { loadInventory } from '../inventory/load-inventory.js';
import { type InventoryFiles, parseInventory } from '../inventory/parse-inventory.js';
import { ParseMemo } from '../inventory/parse-memo.js';
import { parseSecretsFile, withSecrets } from '../inventory/secrets-file.js';
import { writePrivateFileSync } from '../private-files.js';
import { cut, ERROR_CHARS, keptErrors, SUBJECT_CHARS } from '../revision-bounds.js';
import type { SignatureVerdict } from '../source/commit-signatures.js';
import type { Revision, Source } from '../source/source.js';
import type { Reconciler } from './reconciler.js';
import type { StatusStore } from './status-store.js';

export interface IntakeOptions {
  reconciler: Pick<Reconciler, 'apply' | 'revision'>;
  status: StatusStore;
  log: Logger;
  /** Where the last good revision's sha is kept. */
  stateDir: string;
  /** The daemon's secrets file: read with every revision, so a rotated secret takes effect at the next one. */
  secretsFile?: string;
  /** The inventory's directory in the repo, put before file names in diagnostics (`deploy/instances.yaml:3:1`). */
  shownPrefix?: string;
  /** Who signed the revision (source.verify): one that is not signed by an allowed key is rejected whole. */
  verify?: (revision: Revision, lastGood: string | undefined) => Promise<SignatureVerdict>;
  /**
   * How long reading and validating one revision may take before it is rejected: whatever a commit holds,
   * the source must get its next revision through (default 30 s; a 10,000-node inventory takes about 1 s).
   */
  deadlineMs?: number;
  /** How a revision's inventory is read: loadInventory, unless a test stands in a filesystem that hangs. */
  load?: typeof loadInventory;
  /** A revision was accepted: for systemd's status line. */
  onAccepted?: (sha: string, nodes: number) => void;
}

const DEFAULT_DEADLINE_MS = 30_000;

type Read = { ok: true; state: DesiredState } | { ok: false; errors: string[] };

/** What intake needs of the source: an older revision read again, and whether a head descends from another. */
type SourceAccess = Pick<Source, 'revision' | 'descends'>;

/** A full object name: the only shape of a sha passed to git (the last good file is in a state dir, not trusted). */
const OBJECT_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export class Intake {
  readonly #lastGoodFile: string;
  /** The last revision's parse: a commit that changes one node file re-derives only that node. */
  readonly #memo = new ParseMemo();
  /** The secrets file's last text and values: the same values object keeps merged nodes the same objects. */
  #secrets?: { text: string; parsed: ReturnType<typeof parseSecretsFile> };
  /** Shas an operator allowed to rewind to (`groundcrew source allow-rewind`), until one is accepted. */
  readonly #rewindsAllowed = new Set<string>();
  /** Why the last good revision could not be read again at start, until a revision is accepted. */
  #restoreFailure?: string;

  constructor(private readonly options: IntakeOptions) {
    this.#lastGoodFile = join(options.stateDir, 'last-good-revision');
  }

  /** An operator allows the head `sha` although it does not descend from the revision in force (source.verify). */
  allowRewind(sha: string): void {
    this.#rewindsAllowed.add(sha);
  }

  /** Why the last good revision could not be read again at start (for /readyz), while nothing is in force. */
  get restoreFailure(): string | undefined {
    return this.#restoreFailure;
  }

  /** An operator allowed `sha` and it was not accepted since (cluster mode asks before it applies a rewind). */
  rewindAllowed(sha: string): boolean {
    return this.#rewindsAllowed.has(sha);
  }

  /** A head refused before it reached intake, for the rewind `receive` refuses (cluster mode's leader, source.verify). */
  refuseRewind(revision: Revision, from: string): void {
    const { status, log } = this.options;
    const reason = `not a descendant of ${from}: a rollback needs a new signed commit (git revert)`;
    status.recordRevision({
      sha: revision.sha,
      subject: revision.subject,
      accepted: false,
      errors: [reason],
      rewind: { from, allowed: false },
    });
    log.error(
      { revision: revision.sha, code: errors.GC_REVISION_REJECTED.code, errors: [reason] },
      `revision ${revision.sha.slice(0, 12)} rejected; nodes stay on the last good revision`,
    );
  }

  /** Validates a revision and puts it in force, or records why not. */
  async receive(revision: Revision, source?: SourceAccess): Promise<void> {
    const { status, log, reconciler } = this.options;
    const lastGood = this.#lastGood();
    const rewind = await this.#rewind(revision.sha, lastGood, source);
    const signature = await this.options.verify?.(revision, lastGood).catch(
      (err: Error): SignatureVerdict => ({
        ok: false,
        sha: revision.sha,
        reason: `its signature could not be checked: ${err.message.split('\n')[0]}`,
      }),
    );
    const trusted: Read | undefined =
      signature && !signature.ok
        ? { ok: false, errors: [`commit ${revision.sha.slice(0, 12)} is not trusted: ${signature.reason}`] }
        : undefined;
    // With source.verify a rewind needs an operator's word: push access alone must not bring back an older
    // signed inventory (a rollback is a new signed commit, git revert). Without it, a rewind is applied, flagged.
    const rewound: Read | undefined =
      rewind && this.options.verify && !rewind.allowed
        ? { ok: false, errors: [`not a descendant of ${rewind.from}: a rollback needs a new signed commit (git revert)${rewind.note}`] }
        : undefined;
    const result = trusted ?? rewound ?? (await this.#readWithin(revision.files ?? revision.dir, revision.root));
    const about = {
      ...(signature ? { signature } : {}),
      ...(rewind ? { rewind: { from: rewind.from, allowed: rewind.allowed } } : {}),
      ...(revision.author ? { author: revision.author } : {}),
      ...(revision.committedAt ? { committedAt: revision.committedAt } : {}),
    };
    if (!result.ok) {
      if (!reconciler.revision) await this.#restoreLastGood(revision.sha, source);
      status.recordRevision({ sha: revision.sha, subject: revision.subject, accepted: false, errors: result.errors, ...about });
      log.error(
        {
          revision: revision.sha,
          code: errors.GC_REVISION_REJECTED.code,
          subject: cut(revision.subject, SUBJECT_CHARS),
          ...keptErrors(result.errors),
        },
        `revision ${revision.sha.slice(0, 12)} rejected; nodes stay on the last good revision`,
      );
      return;
    }
    writePrivateFileSync(this.#lastGoodFile, `${revision.sha}\n`);
    this.#rewindsAllowed.delete(revision.sha);
    this.#restoreFailure = undefined;
    status.recordRevision({ sha: revision.sha, subject: revision.subject, accepted: true, ...about });
    if (rewind)
      log.warn(
        { revision: revision.sha, from: rewind.from, allowed: rewind.allowed },
        `revision ${revision.sha.slice(0, 12)} rewinds from ${rewind.from.slice(0, 12)} (${rewind.allowed ? 'allowed by an operator' : 'source.verify is off'}): applied`,
      );
    log.info(
      { revision: revision.sha, nodes: result.state.nodes.length, trigger: revision.trigger, signer: signature?.signer },
      'revision accepted',
    );
    reconciler.apply({ sha: revision.sha, state: result.state });
    this.options.onAccepted?.(revision.sha, result.state.nodes.length);
  }

  /** Bad at start, with nothing in force yet: the last good revision is read again from the source, as intake reads any. */
  async #restoreLastGood(rejected: string, source?: SourceAccess): Promise<void> {
    const lastGood = this.#lastGood();
    if (!lastGood || lastGood === rejected || !source?.revision) return;
    const why = await this.#restore(lastGood, source.revision.bind(source));
    if (!why) return;
    this.#restoreFailure = `the last good revision ${lastGood.slice(0, 12)} could not be read again: ${why}`;
    this.options.log.error({ revision: lastGood, file: this.#lastGoodFile }, `${this.#restoreFailure}; no revision is in force`);
  }

  /** Puts `sha` in force again if it still validates; else why not. */
  async #restore(sha: string, revisionOf: NonNullable<SourceAccess['revision']>): Promise<string | undefined> {
    if (!OBJECT_NAME.test(sha)) return `${this.#lastGoodFile} does not hold a full object name`;
    const revision = await revisionOf(sha, 'the last good revision, read again at start').catch((err: Error) => err);
    if (revision instanceof Error) return revision.message.split('\n')[0];
    if (!revision) return 'the clone does not have that commit';
    const restored = await this.#readWithin(revision.files ?? revision.dir, revision.root);
    if (!restored.ok) {
      const more = restored.errors.length > 1 ? ` (and ${restored.errors.length - 1} more)` : '';
      return `${cut(restored.errors[0] ?? 'rejected', ERROR_CHARS)}${more}`;
    }
    this.#restoreFailure = undefined;
    const { subject, author, committedAt } = revision;
    this.options.status.recordRevision({
      sha,
      subject: `(read again at start) ${subject}`,
      accepted: true,
      ...(author ? { author } : {}),
      ...(committedAt ? { committedAt } : {}),
    });
    this.options.reconciler.apply({ sha, state: restored.state });
    return undefined;
  }

  /**
   * Whether `sha` leaves the revision in force behind (not it, not descending from it), and whether an operator
   * allowed that. A descent the source cannot tell counts as a rewind (`note` says why).
   */
  async #rewind(
    sha: string,
    lastGood: string | undefined,
    source?: SourceAccess,
  ): Promise<{ from: string; allowed: boolean; note: string } | undefined> {
    if (!lastGood || lastGood === sha || !source?.descends) return undefined;
    const allowed = this.#rewindsAllowed.has(sha);
    if (!OBJECT_NAME.test(lastGood) || !OBJECT_NAME.test(sha))
      return { from: lastGood, allowed, note: ' (the revision in force is not a full object name)' };
    const descends = await source.descends(sha, lastGood).catch((err: Error) => err);
    if (descends === true) return undefined;
    return { from: lastGood, allowed, note: descends instanceof Error ? ` (cannot tell: ${descends.message.split('\n')[0]})` : '' };
  }

  /** The revision accepted last, as kept in the state directory (a full object name, or nothing). */
  lastGood(): string | undefined {
    const sha = this.#lastGood();
    return sha && OBJECT_NAME.test(sha) ? sha : undefined;
  }

  #lastGood(): string | undefined {
    return existsSync(this.#lastGoodFile) ? readFileSync(this.#lastGoodFile, 'utf8').trim() || undefined : undefined;
  }

  /**
   * The read (of the files a source read from the commit, or of a directory), or a rejection once the deadline
   * passes (the read is then left to finish on its own).
   */
  async #readWithin(from: string | (() => Promise<InventoryFiles>), repoRoot?: string): Promise<Read> {
    const ms = this.options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Read>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, errors: [`reading and validating the revision took longer than ${ms / 1000}s: rejected`] }),
        ms,
      );
    });
    try {
      return await Promise.race([this.#read(from, repoRoot), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #read(from: string | (() => Promise<InventoryFiles>), repoRoot?: string): Promise<Read> {
    const load = this.options.load ?? loadInventory;
    const memo = this.#memo;
    const loaded = await (typeof from === 'string'
      ? load(from, { ...(repoRoot ? { repoRoot } : {}), memo })
      : from().then((files) => ({ result: parseInventory(files, memo) }))
    ).catch((err: Error) => err);
    if (loaded instanceof Error) return { ok: false, errors: [loaded.message] };
    if (!loaded.result.ok)
      return { ok: false, errors: loaded.result.errors.map((d) => formatDiagnostic(d, this.options.shownPrefix ?? '')) };
    const { secretsFile } = this.options;
    if (!secretsFile) return loaded.result;
    let text: string;
    try {
      text = readFileSync(secretsFile, 'utf8');
    } catch (err) {
      // A secrets file that went missing rejects the revision (nodes stay on the last good one); it never throws.
      return { ok: false, errors: [`${secretsFile}: cannot read the secrets file: ${(err as Error).message}`] };
    }
    if (this.#secrets?.text !== text) this.#secrets = { text, parsed: parseSecretsFile(secretsFile, text) };
    const secrets = this.#secrets.parsed;
    if (secrets.errors.length > 0) return { ok: false, errors: secrets.errors.map((d) => formatDiagnostic(d)) };
    return { ok: true, state: withSecrets(loaded.result.state, secrets.values) };
  }
}
