// A Git remote followed on one branch: cloned once into the state directory, fetched on a poll interval
// (with jitter) and at once when a webhook asks. Each new HEAD is handed on as a candidate revision; a
// force-push is followed (reset to the remote), and said so in the log. A server that cannot be reached (at
// start or later) is a condition, not a crash: retried with backoff, the last revision stays in force, and
// `stalled()` says why (source-outage.ts). Credentials of the URL never leave in a message (redact-url.ts), nor
// reach git's command line or the clone's config (git-credential.ts).

import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import type { SimpleGit } from 'simple-git';
import { errors } from '../errors.js';
import { cut, SUBJECT_CHARS } from '../revision-bounds.js';
import { fetchArgs, openClone } from './clone.js';
import { type GitRemote, gitRemote } from './git-credential.js';
import { gitEnvironment, proxyUrls, type SshSettings } from './git-environment.js';
import { GitInventoryReader } from './git-inventory.js';
import { GitObjects } from './git-objects.js';
import { LocalRemote, localGitDir } from './local-remote.js';
import { urlRedactor } from './redact-url.js';
import type { OnRevision, Revision, Source } from './source.js';
import { gitProblem, SourceOutage } from './source-outage.js';
import { SpareFetch } from './spare-fetch.js';

const run = promisify(execFile);
/** git's words when the remote has no such branch: clone's, then fetch's. */
const MISSING_BRANCH = /Remote branch .* not found in upstream|couldn't find remote ref refs\/heads\//;

/** How many poll intervals a look may run before the source says it is stalled (and /readyz goes red). */
const STALLED_POLLS = 3;
/** How long stop() waits for a look it aborted. */
const STOP_WAIT_MS = 2000;
/**
 * How long start() waits for the first look: a server that takes the connection and never answers must not
 * hold the daemon's start past systemd's start timeout (90 s by default), or systemd kills it in a loop.
 */
const FIRST_LOOK_WAIT_MS = 30_000;

export interface GitSourceOptions {
  url: string;
  branch: string;
  /** The inventory's directory inside the repo ('' or '.' for the top). */
  path: string;
  /** Where the clone lives (in the state directory). */
  checkout: string;
  pollMs: number;
  /** The deploy key and the server's host keys, for ssh:// and scp-like URLs (git-environment.ts). */
  ssh?: SshSettings;
  /** The daemon's environment: git gets only its proxy, CA and SSH agent variables from it (git-environment.ts). */
  environment: NodeJS.ProcessEnv;
  /**
   * When the URL is a path on this machine, read the branch's head and its files from the remote in place
   * (local-remote.ts); the clone is fetched at polls and before anything reads it. Off when something must read the new
   * commit from the clone first (source.verify checks signatures in the clone).
   */
  readLocalRemote?: boolean;
  /** How long start() waits for the first look before it returns (FIRST_LOOK_WAIT_MS). */
  firstLookWaitMs?: number;
  log: Logger;
  onRevision: OnRevision;
}

export class GitSource implements Source {
  #git?: SimpleGit;
  /** One `git cat-file --batch` for the daemon's life: each revision's files come from it, not a checkout. */
  #objects?: GitObjects;
  #reader?: GitInventoryReader;
  /** The fetch, started ahead of the look that needs it. */
  #fetch?: SpareFetch;
  /** A local remote read in place, and its commits' files. */
  #local?: { remote: LocalRemote; reader: GitInventoryReader };
  #head?: string;
  /** The head the clone was last fetched to, when the local remote is read in place. */
  #cloned?: string;
  #fetching: Promise<void> = Promise.resolve();
  #timer?: NodeJS.Timeout;
  #running?: Promise<void>;
  #again?: string;
  #stopped = false;
  /** Ends any git process still running at stop: a fetch from a server that hangs must not hold shutdown. */
  readonly #abort = new AbortController();
  /** When the last look (fetch, checkout, intake) finished, or the source started: for `stalled()`. */
  #finishedAt = Date.now();
  /** The clone or fetch failing since, if it is. */
  readonly #outage = new SourceOutage();
  readonly #env: Record<string, string>;
  /** The URL git is given (no credential), and the environment of the processes that reach the server. */
  readonly #remote: GitRemote;
  /** Masks the URL's credentials (and a proxy's) in anything shown. */
  readonly #redact: (text: string) => string;

  constructor(private readonly options: GitSourceOptions) {
    this.#env = gitEnvironment(options.environment, options.ssh);
    this.#remote = gitRemote(options.url);
    this.#redact = urlRedactor([options.url, ...proxyUrls(this.#env)]);
  }

  get head(): string | undefined {
    return this.#head;
  }

  /**
   * The first look, whether or not the server answers: a source that cannot fetch is stalled, not an error. One
   * that has not finished within firstLookWaitMs goes on after start() returns (stalled() says so in time).
   */
  async start(): Promise<void> {
    await mkdir(dirname(this.options.checkout), { recursive: true });
    const first = this.trigger('start');
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      first.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), this.options.firstLookWaitMs ?? FIRST_LOOK_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (waited) this.options.log.warn(`the first look at ${this.options.branch} has not finished; serving meanwhile`);
    this.#schedule();
  }

  /** The clone made (or its remote URL brought up to date), and its readers: once, at the first look that can. */
  async #open(): Promise<SimpleGit> {
    const { checkout, branch } = this.options;
    const env = this.#env;
    const git = await openClone({ checkout, branch, remote: this.#remote, env, signal: this.#abort.signal });
    // Stopped while the clone ran: no reader is started that stop() would not close.
    if (this.#stopped) throw new Error('the source was stopped');
    this.#objects = new GitObjects(checkout, env);
    this.#fetch = new SpareFetch(checkout, fetchArgs(branch), { ...env, ...this.#remote.env });
    this.#reader = new GitInventoryReader(this.#objects, this.options.path, this.#inventoryDir());
    const local = this.options.readLocalRemote ? localGitDir(this.options.url) : undefined;
    if (local) {
      const remote = new LocalRemote(local, env);
      this.#local = { remote, reader: new GitInventoryReader(remote.objects, this.options.path, this.#inventoryDir()) };
    }
    this.#git = git;
    return git;
  }

  trigger(reason: string): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#running) {
      this.#again = reason;
      return this.#running;
    }
    this.#running = this.#look(reason)
      // A look that fails past the fetch (a checkout, an intake error) is logged, never left unhandled;
      // one ended by stop() is not news.
      .catch((err: unknown) => {
        if (!this.#stopped) this.options.log.error({ err: this.#redactedError(err), trigger: reason }, 'looking at the source failed');
      })
      .finally(() => {
        this.#running = undefined;
        this.#finishedAt = Date.now();
        const again = this.#again;
        this.#again = undefined;
        if (again) void this.trigger(again);
      });
    return this.#running;
  }

  /**
   * Why newer commits are not being applied: the server could not be reached (or refused) at the last attempts,
   * or a look has run for more than STALLED_POLLS poll intervals. Credentials masked.
   */
  stalled(): string | undefined {
    const failure = this.#outage.failure;
    if (failure) {
      const staying = this.#head ? `staying on ${this.#head.slice(0, 12)}` : 'no revision of the inventory yet';
      const attempts = `${failure.attempts} attempt${failure.attempts === 1 ? '' : 's'} since ${new Date(failure.since).toISOString()}`;
      return `${failure.message} (${attempts}; retried with backoff); ${staying}`;
    }
    const since = Date.now() - this.#finishedAt;
    const limit = this.options.pollMs * STALLED_POLLS;
    if (!this.#running || since <= limit) return undefined;
    return `the source has not finished a look at ${this.options.branch} for ${Math.round(since / 1000)}s (more than ${STALLED_POLLS} poll intervals); newer commits are not being applied`;
  }

  /** Commit `sha` as a revision, when the local remote or the clone has it; undefined when neither does. */
  async revision(sha: string, trigger: string): Promise<Revision | undefined> {
    for (const reader of [this.#local?.reader, this.#reader]) {
      const revision = reader && (await this.#revision(reader, sha, trigger).catch(() => undefined));
      if (revision) return revision;
    }
    return undefined;
  }

  /** Whether `sha` is `ancestor` or descends from it, read in the clone (caught up first). */
  async descends(sha: string, ancestor: string): Promise<boolean> {
    if (sha === ancestor) return true;
    await this.#catchUp();
    // git itself, not simple-git: `merge-base --is-ancestor` answers "no" with exit code 1 and nothing on stderr.
    const git = (args: string[]) => run('git', ['-C', this.options.checkout, ...args], { env: this.#env, signal: this.#abort.signal });
    for (const commit of [sha, ancestor])
      await git(['cat-file', '-e', `${commit}^{commit}`]).catch(() => {
        throw new Error(`commit ${commit.slice(0, 12)} is not in the clone`);
      });
    return git(['merge-base', '--is-ancestor', ancestor, sha]).then(
      () => true,
      (err: { code?: unknown }) => {
        if (err.code === 1) return false;
        throw new Error(`git merge-base failed: ${String((err as Error).message).split('\n')[0]}`);
      },
    );
  }

  async #revision(reader: GitInventoryReader, sha: string, trigger: string): Promise<Revision> {
    const { subject, author, committedAt } = await reader.commit(sha);
    // Cut here, where they enter: whatever a commit holds, no later holder (intake, the coordination, the log) sees more.
    return {
      sha,
      dir: this.#inventoryDir(),
      root: this.options.checkout,
      subject: cut(subject, SUBJECT_CHARS),
      ...(author ? { author: cut(author, SUBJECT_CHARS) } : {}),
      ...(committedAt ? { committedAt } : {}),
      trigger,
      files: () => reader.files(sha),
    };
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#abort.abort();
    // A git ended by the abort can still leave a child holding its stderr open (a local upload-pack
    // blocked on a pipe), and simple-git waits for every stream to close: wait a little, not forever.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STOP_WAIT_MS);
    });
    await Promise.race([this.#running, late]);
    clearTimeout(timer);
    this.#objects?.close();
    this.#local?.remote.close();
    this.#fetch?.close();
  }

  /**
   * A head that does not descend from the previous one was force-pushed; say so. Usually the previous head is a
   * parent a few commits back: walked through the object reader; past that, `git merge-base` decides.
   */
  async #noteForcePush(from: string, to: string): Promise<void> {
    const reader = this.#local?.reader ?? this.#reader;
    let frontier = [to];
    const seen = new Set<string>();
    for (let steps = 0; steps < 64 && frontier.length > 0; steps++) {
      if (frontier.includes(from)) return;
      const next: string[] = [];
      for (const sha of frontier) {
        if (seen.has(sha)) continue;
        seen.add(sha);
        next.push(...((await reader?.commit(sha).catch(() => undefined))?.parents ?? []));
      }
      frontier = next;
    }
    if (frontier.length === 0) return this.#forcePushed(from, to);
    await this.#catchUp();
    const forward = await this.#git
      ?.raw(['merge-base', '--is-ancestor', from, to])
      .then(() => true)
      .catch(() => false);
    if (forward === false) this.#forcePushed(from, to);
  }

  #forcePushed(from: string, to: string): void {
    this.options.log.warn({ from, to }, `${this.options.branch} was force-pushed: following the remote (reset to ${to.slice(0, 12)})`);
  }

  #inventoryDir(): string {
    const { path, checkout } = this.options;
    return path && path !== '.' ? join(checkout, path) : checkout;
  }

  #schedule(): void {
    if (this.#stopped) return;
    // Jitter: a fleet of daemons polling one server should not do it in step. Backoff while it fails.
    const delay = this.#outage.delayMs(this.options.pollMs) * (0.8 + Math.random() * 0.4);
    this.#timer = setTimeout(() => {
      void this.trigger('poll').finally(() => this.#schedule());
    }, delay);
    this.#timer.unref();
  }

  // The hot path of a webhook: a local remote's head read in place (no process started), else the fetch (started
  // ahead, without the maintenance it would start after) and the ref read as a file; then the commit and its
  // files read through an object reader. No checkout.
  async #look(trigger: string): Promise<void> {
    const { branch, log } = this.options;
    let git = this.#git;
    if (!git) {
      try {
        git = await this.#open();
      } catch (err) {
        if (!this.#stopped) this.#failed(`cloning ${branch} of ${this.options.url}`, err, trigger);
        return;
      }
    }
    if (!this.#reader || !this.#fetch) return;
    const started = performance.now();
    const inPlace = await this.#local?.remote.head(branch).catch((err: Error) => {
      log.debug({ err }, 'the local remote could not be read in place; fetching');
      return undefined;
    });
    if (this.#stopped) return;
    let sha = inPlace;
    if (!sha) {
      try {
        await this.#fetchOnce();
      } catch (err) {
        if (this.#stopped) return;
        this.#failed(`fetching ${branch} from ${this.options.url}`, err, trigger);
        // A restart while the server is away: the clone's last fetched head is read again (intake falls back to
        // the last good revision if that one is bad), so the nodes keep a revision in force.
        if (!this.#head) await this.#offerFetchedHead(git, `${trigger}, the server unreachable: the clone's last fetched head`);
        return;
      }
      sha = await this.#fetchedHead(git);
      this.#cloned = sha;
    }
    if (this.#outage.recovered()) log.info({ trigger }, `the source fetches ${branch} again`);
    const fetchMs = inPlace ? 0 : Math.round((performance.now() - started) * 10) / 10;
    const reader = (inPlace && this.#local?.reader) || this.#reader;
    // A head read in place reaches the clone at the next poll (or before anything reads the clone), never on a
    // webhook's path: a fetch there would hold the next webhook's look, and compete with the first command.
    if (sha === this.#head) return trigger === 'poll' ? this.#catchUp() : undefined;
    const previous = this.#head;
    const revision = await this.#revision(reader, sha, trigger);
    this.#head = sha;
    log.info({ sha, trigger, subject: revision.subject, fetchMs, read: inPlace ? 'local remote' : 'fetch' }, 'new head');
    await this.options.onRevision(revision);
    // After the revision is handed on: nothing on the hot path waits for a log line.
    if (previous) void this.#noteForcePush(previous, sha);
    if (trigger === 'poll') await this.#catchUp();
  }

  /** The commit the clone's remote-tracking branch is at: read as a file (git rev-parse when it was packed). */
  async #fetchedHead(git: SimpleGit): Promise<string> {
    const ref = `refs/remotes/origin/${this.options.branch}`;
    return (await readFile(join(this.options.checkout, '.git', ref), 'utf8').catch(() => git.revparse([ref]))).trim();
  }

  async #offerFetchedHead(git: SimpleGit, trigger: string): Promise<void> {
    const sha = await this.#fetchedHead(git).catch(() => undefined);
    const revision = sha && this.#reader && (await this.#revision(this.#reader, sha, trigger).catch(() => undefined));
    if (!revision || this.#head) return;
    this.#head = revision.sha;
    this.options.log.info({ sha: revision.sha, trigger }, 'the last fetched head, read again from the clone');
    await this.options.onRevision(revision);
  }

  /** A clone or fetch that failed: the outage recorded (said once per new error), credentials masked. */
  #failed(what: string, err: unknown, trigger: string): void {
    const said = gitProblem(err instanceof Error ? err.message : String(err));
    // The branch not on the remote (not pushed yet, or deleted): said in the config's words, not git's.
    const missing = MISSING_BRANCH.test(said) ? `the remote has no branch ${this.options.branch} (source.branch)` : undefined;
    const message = this.#redact(missing ? `${what} failed: ${missing}` : `${what} failed: ${said}`);
    const news = this.#outage.failed(message);
    const failure = this.#outage.failure;
    const next = Math.round(this.#outage.delayMs(this.options.pollMs) / 1000);
    const line = `${message}; ${this.#head ? `staying on ${this.#head.slice(0, 12)}` : 'no revision yet'}; next attempt in about ${next}s`;
    if (news) this.options.log.warn({ trigger, attempts: failure?.attempts, code: errors.GC_GIT_FETCH.code }, line);
    else this.options.log.debug({ trigger, attempts: failure?.attempts }, line);
  }

  /** An error as a log may show it: its message and code, credentials masked (no stack, no cause with the raw text). */
  #redactedError(err: unknown): { message: string; code?: string } {
    const { message, code } = err instanceof Error ? (err as Error & { code?: unknown }) : { message: String(err), code: undefined };
    return { message: this.#redact(message), ...(typeof code === 'string' ? { code } : {}) };
  }

  /** The clone fetched to the head last read in place: before the clone is read (merge-base), and at polls. */
  async #catchUp(): Promise<void> {
    const head = this.#head;
    if (!this.#local || !head || this.#cloned === head || this.#stopped) return;
    try {
      await this.#fetchOnce();
      this.#cloned = head;
    } catch (err) {
      if (!this.#stopped)
        this.options.log.warn(
          { err: this.#redactedError(err) },
          `fetch of ${this.options.branch} into the clone failed (the revision was read from the remote in place); retried at the next poll`,
        );
    }
  }

  /** One fetch at a time: a catch-up asked for outside a look (descends) never overlaps a look's. */
  #fetchOnce(): Promise<void> {
    const fetch = this.#fetch;
    if (!fetch) return Promise.reject(new Error('the source has not started'));
    const run = this.#fetching.catch(() => undefined).then(() => fetch.run(this.#abort.signal));
    this.#fetching = run;
    return run;
  }
}
