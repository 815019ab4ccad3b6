// One long-lived `git cat-file --batch` per repository: commits, trees and blobs read from the object database
// without a process start per read. Starting git from a large Node process cost 15 to 60 ms a time and was
// most of a webhook's latency (docs/BENCHMARKS.md, webhook-latency); this is one process for the daemon's life.
// The protocol is git's own (git-cat-file(1), BATCH OUTPUT): a name per line in; per name,
// "<oid> <type> <size>\n<content>\n", or "<name> missing\n" (also "ambiguous").

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

export interface GitObject {
  oid: string;
  type: string;
  content: Buffer;
}

interface Waiting {
  resolve: (object: GitObject | undefined) => void;
  reject: (err: Error) => void;
}

export class GitObjects {
  #git?: ChildProcessWithoutNullStreams;
  #waiting: Waiting[] = [];
  #buffer: Buffer = Buffer.alloc(0);
  #closed = false;

  /** `repo` is a repository (a working tree or a git dir); `env` is git's environment. */
  constructor(
    private readonly repo: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** The object `name` names (an oid, `<commit>^{tree}`, `<commit>:<path>`), or undefined when there is none. */
  read(name: string): Promise<GitObject | undefined> {
    if (this.#closed) return Promise.reject(new Error('the object reader is closed'));
    if (/[\n\r]/.test(name)) return Promise.reject(new Error(`an object name holds a line break: ${JSON.stringify(name)}`));
    const git = this.#start();
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      git.stdin.write(`${name}\n`);
    });
  }

  close(): void {
    this.#closed = true;
    this.#git?.stdin.end();
    this.#git?.kill();
    this.#git = undefined;
  }

  #start(): ChildProcessWithoutNullStreams {
    if (this.#git) return this.#git;
    const git = spawn('git', ['-C', this.repo, 'cat-file', '--batch'], { env: this.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    git.stderr.on('data', (chunk: Buffer) => {
      stderr = `${stderr}${chunk.toString()}`.slice(-2000);
    });
    git.stdout.on('data', (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#drain();
    });
    // A git that died (or was never there) fails what waits on it; the next read starts another.
    const fail = (why: string) => {
      if (this.#git !== git) return;
      this.#git = undefined;
      this.#buffer = Buffer.alloc(0);
      const waiting = this.#waiting.splice(0);
      for (const w of waiting) w.reject(new Error(`git cat-file --batch in ${this.repo} ended (${why}): ${stderr.trim()}`));
    };
    git.on('error', (err) => fail(err.message));
    git.on('close', (code, signal) => fail(`exit ${code ?? signal}`));
    git.stdin.on('error', () => undefined);
    this.#git = git;
    return git;
  }

  /** Answers every complete record in the buffer, in order. */
  #drain(): void {
    for (;;) {
      const eol = this.#buffer.indexOf(10);
      if (eol < 0) return;
      const header = this.#buffer.subarray(0, eol).toString('utf8');
      const missing = / (missing|ambiguous)$/.test(header);
      if (missing) {
        this.#buffer = this.#buffer.subarray(eol + 1);
        this.#waiting.shift()?.resolve(undefined);
        continue;
      }
      const [oid = '', type = '', sizeText = ''] = header.split(' ');
      const size = Number(sizeText);
      if (!Number.isSafeInteger(size)) {
        this.#waiting.shift()?.reject(new Error(`git cat-file --batch answered ${JSON.stringify(header)}`));
        this.close();
        return;
      }
      // The content, then one newline.
      if (this.#buffer.length < eol + 1 + size + 1) return;
      const content = Buffer.from(this.#buffer.subarray(eol + 1, eol + 1 + size));
      this.#buffer = this.#buffer.subarray(eol + 1 + size + 1);
      this.#waiting.shift()?.resolve({ oid, type, content });
    }
  }
}

/** One entry of a tree object: `<mode> <name>\0<oid bytes>`. */
export interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
}

/** A tree object's entries; `oidBytes` is 20 (SHA-1) or 32 (SHA-256). */
export function treeEntries(content: Buffer, oidBytes: number): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(32, at);
    const nul = content.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 1 + oidBytes > content.length) throw new Error('a tree object that does not parse');
    entries.push({
      mode: content.subarray(at, space).toString('utf8'),
      name: content.subarray(space + 1, nul).toString('utf8'),
      oid: content.subarray(nul + 1, nul + 1 + oidBytes).toString('hex'),
    });
    at = nul + 1 + oidBytes;
  }
  return entries;
}

/** A commit's tree, parents and subject (git log's %s: the message's first paragraph on one line). */
/** A commit's fields; `author` as `%an <%ae>` and `committedAt` as `%cI` (strict ISO 8601, the committer's zone) print them. */
export function commitFields(content: Buffer): {
  tree: string;
  parents: string[];
  subject: string;
  author?: string;
  committedAt?: string;
} {
  const text = content.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = split < 0 ? text : text.slice(0, split);
  const message = split < 0 ? '' : text.slice(split + 2);
  let tree = '';
  const parents: string[] = [];
  let author: string | undefined;
  let committedAt: string | undefined;
  for (const line of headers.split('\n')) {
    if (line.startsWith('tree ')) tree = line.slice(5);
    else if (line.startsWith('parent ')) parents.push(line.slice(7));
    else if (line.startsWith('author ')) author = identity(line.slice(7))?.who;
    else if (line.startsWith('committer ')) committedAt = identity(line.slice(10))?.at;
  }
  // As pretty.c's format_subject: blank lines skipped, the paragraph's lines joined by one space, each trimmed at its end.
  const lines = message.split('\n');
  let first = 0;
  while (first < lines.length && (lines[first] ?? '').trim() === '') first++;
  const paragraph: string[] = [];
  for (const line of lines.slice(first)) {
    if (line.trim() === '') break;
    paragraph.push(line.trimEnd());
  }
  return {
    tree,
    parents,
    subject: paragraph.join(' '),
    ...(author !== undefined ? { author } : {}),
    ...(committedAt !== undefined ? { committedAt } : {}),
  };
}

/** `Name <email> 1700000000 +0100` → `Name <email>` and `2023-11-14T23:13:20+01:00`; undefined when malformed. */
function identity(text: string): { who: string; at: string } | undefined {
  const match = /^(.*?) <([^>]*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(text);
  if (!match) return undefined;
  const [, name, email, seconds, sign, hours, minutes] = match as unknown as string[];
  const offset = (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
  const local = new Date((Number(seconds) + offset * 60) * 1000).toISOString().slice(0, 19);
  return { who: `${name} <${email}>`, at: `${local}${sign}${hours}:${minutes}` };
}
