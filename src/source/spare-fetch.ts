// The webhook's fetch without a process start on its path: a shell is started ahead, waiting on its stdin,
// and a line makes it exec `git fetch`; the next one is started once that one ends. Starting a process from
// the daemon was most of a webhook's time to its first command (docs/BENCHMARKS.md, webhook-latency).
// The spare holds one idle `sh` for the daemon's life; a spare whose stdin closes without a line exits 0, unused.

import { type ChildProcess, spawn } from 'node:child_process';

// `read` fails on end of input: a spare the daemon let go of exits without fetching.
const WAIT_THEN_EXEC = 'IFS= read -r _ || exit 0; exec git "$@"';

export class SpareFetch {
  #spare?: ChildProcess;
  #closed = false;

  /** `args` are git's (the fetch and its options), run in `cwd` with `env` only. */
  constructor(
    private readonly cwd: string,
    private readonly args: readonly string[],
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Runs the fetch once; rejects with git's stderr when it exits non-zero, or when `signal` aborts it. */
  run(signal?: AbortSignal): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the fetcher is closed'));
    // A spare that ended while it waited (killed from outside) is replaced, or the run would wait forever.
    const spare = this.#spare;
    const child = spare && spare.exitCode === null && spare.signalCode === null ? spare : this.#start();
    this.#spare = undefined;
    const done = new Promise<void>((resolve, reject) => {
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr = `${stderr}${chunk.toString()}`.slice(-4000);
      });
      const abort = () => child.kill();
      signal?.addEventListener('abort', abort, { once: true });
      child.once('error', reject);
      child.once('close', (code, sig) => {
        signal?.removeEventListener('abort', abort);
        if (code === 0) resolve();
        else reject(new Error(stderr.trim() || `git ${this.args.join(' ')} ended with ${code ?? sig}`));
      });
    });
    child.stdin?.end('go\n');
    // The next one starts once this one is over: two fetches of one repository never overlap.
    void done.catch(() => undefined).finally(() => this.#prepare());
    return done;
  }

  /** Starts the spare now, off the first webhook's path. */
  prepare(): void {
    this.#prepare();
  }

  close(): void {
    this.#closed = true;
    this.#spare?.stdin?.end();
    this.#spare = undefined;
  }

  #prepare(): void {
    if (this.#closed || this.#spare) return;
    this.#spare = this.#start();
  }

  #start(): ChildProcess {
    const child = spawn('sh', ['-c', WAIT_THEN_EXEC, 'sh', ...this.args], {
      cwd: this.cwd,
      env: this.env,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    // A spare that failed to start (or ended) is noticed on run: its 'error' or 'close' settles the run.
    child.on('error', () => undefined);
    return child;
  }
}
