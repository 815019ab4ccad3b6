// Bounded revision records through a running daemon (issue 30, item 5): commits pushed to a real Git remote the
// daemon follows. A tree of 30,000 files under nodes/ (each naming a node instances.yaml lacks) is rejected and its
// record keeps the first ERRORS_KEPT errors and the count, on /api/revisions, the page and `groundcrew status`; after
// 11 such commits /revisions and /api/revisions stay within a size fixed by the bounds (sizes asserted, not times).
// A 1 MB subject (and a 1 MB author) is cut everywhere it is stored, logged, served and printed; with
// source.verify, so is a rejected unsigned commit's.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CHARS, ERRORS_KEPT, SUBJECT_CHARS } from '../../src/revision-bounds.js';
import { type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/wait-until.js';

interface Revision {
  sha: string;
  accepted: boolean;
  subject?: string;
  author?: string;
  errors?: string[];
  errorCount?: number;
}

const FILES = 30_000;
const REJECTED = 11;
/** What one rejected record may take once bounded: its kept errors, a subject, an author, and room for the rest. */
const RECORD_BUDGET = ERRORS_KEPT * (ERROR_CHARS + 20) + 3 * SUBJECT_CHARS * 4 + 2000;
/** A run of the long subject's or author's letter longer than anything kept: it must appear nowhere. */
const LEAK = 'q'.repeat(SUBJECT_CHARS + 1);

function served(daemon: DaemonProcess) {
  const text = async (path: string) => (await fetch(`${daemon.url}${path}`)).text();
  const revisions = async () => JSON.parse(await text('/api/revisions')) as Revision[];
  return {
    text,
    revisions,
    revision: (sha: string) =>
      waitUntil(`revision ${sha.slice(0, 12)}`, async () => (await revisions()).find((r) => r.sha === sha), { timeoutMs: 120_000 }),
  };
}

/** Every place the daemon shows a revision: the API (list and one), the pages, `groundcrew status`, its log. */
async function everywhere(daemon: DaemonProcess, sha: string): Promise<Record<string, string>> {
  const { text } = served(daemon);
  const status = await daemon.cli('status', '--url', daemon.url);
  return {
    '/api/revisions': await text('/api/revisions'),
    '/api/revisions/:sha': await text(`/api/revisions/${sha}`),
    '/revisions': await text('/revisions'),
    '/revisions/:sha': await text(`/revisions/${sha}`),
    '/': await text('/'),
    'groundcrew status': status.stdout + status.stderr,
    log: daemon.output(),
  };
}

describe('bounded revision records, through a running daemon', () => {
  let daemon: DaemonProcess;
  let first = '';
  beforeAll(async () => {
    daemon = await startDaemonProcess({ pollInterval: '200ms' });
    first = daemon.git('rev-parse', 'HEAD');
    await served(daemon).revision(first);
  }, 60_000);
  afterAll(async () => daemon?.stop(), 180_000);

  it('keeps the first errors of a 30,000-file tree and their count, and the revisions page stays small after 11', async () => {
    const nodes = join(daemon.work, 'nodes');
    for (let i = 0; i < FILES; i++)
      writeFileSync(join(nodes, `ghost-${String(i).padStart(5, '0')}.yaml`), 'versions:\n  contrail: "5.0.2"\n');
    daemon.git('add', 'nodes');
    const shas: string[] = [];
    for (let n = 0; n < REJECTED; n++) {
      // Each commit changes one ghost, so each is a new revision of the whole tree.
      writeFileSync(join(nodes, 'ghost-00000.yaml'), `versions:\n  contrail: "5.0.${n + 2}"\n`);
      daemon.git('add', 'nodes/ghost-00000.yaml');
      daemon.git('commit', '-qm', `thirty thousand ghosts, take ${n + 1}`);
      daemon.git('push', '-q', 'origin', 'main');
      const sha = daemon.git('rev-parse', 'HEAD');
      shas.push(sha);
      const record = await served(daemon).revision(sha);
      expect(record.accepted).toBe(false);
      expect(record.errors).toHaveLength(ERRORS_KEPT);
      expect(record.errorCount).toBeGreaterThanOrEqual(FILES);
    }
    const last = shas.at(-1) as string;
    const shown = await everywhere(daemon, last);
    // The last ghost's error (past the first ERRORS_KEPT) is counted, never kept, served, printed or logged.
    for (const [where, text] of Object.entries(shown)) expect(text.includes('ghost-29999'), where).toBe(false);
    expect(shown['/revisions']).toMatch(/… and \d+ more \(\d+ in all\)/);
    expect(shown['groundcrew status']).toMatch(/… and \d+ more \(\d+ in all\)/);
    // Sizes: every rejected record within its budget, however many files each commit held.
    const records = REJECTED + 1;
    expect(shown['/api/revisions']?.length).toBeLessThan(records * RECORD_BUDGET);
    expect(shown['/revisions']?.length).toBeLessThan(records * RECORD_BUDGET + 20_000);
    expect(shown['/api/revisions/:sha']?.length).toBeLessThan(RECORD_BUDGET);
    expect(shown['/revisions/:sha']?.length).toBeLessThan(RECORD_BUDGET + 20_000);
    // Each rejection is one log line of bounded size.
    const rejections = daemon
      .output()
      .split('\n')
      .filter((line) => line.includes('"GC_REVISION_REJECTED"'));
    expect(rejections).toHaveLength(REJECTED);
    for (const line of rejections) expect(line.length).toBeLessThan(RECORD_BUDGET);
  }, 600_000);

  it('cuts a 1 MB subject and a 1 MB author everywhere they are stored, logged, served and printed', async () => {
    // Made by hand (a 1 MB argument is past the kernel's limit for one): a 1 MB author, a 1 MB subject, on the first
    // commit's tree (the ghosts gone: accepted, so its subject is also the one in force, on the overview and in status).
    const long = 'q'.repeat(1_000_000);
    const commit = [
      `tree ${daemon.git('rev-parse', `${first}^{tree}`)}`,
      `parent ${daemon.git('rev-parse', 'HEAD')}`,
      `author ${long} <q@example.org> 1700000000 +0000`,
      'committer test <test@example.org> 1700000000 +0000',
      '',
      long,
      '',
      'the body',
      '',
    ].join('\n');
    const sha = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], {
      cwd: daemon.work,
      input: commit,
      encoding: 'utf8',
    }).trim();
    daemon.git('update-ref', 'refs/heads/main', sha);
    daemon.git('push', '-q', 'origin', 'main');
    const record = await served(daemon).revision(sha);
    expect(record.accepted).toBe(true);
    expect(Array.from(record.subject ?? '')).toHaveLength(SUBJECT_CHARS);
    expect(Array.from(record.author ?? '')).toHaveLength(SUBJECT_CHARS);
    for (const [where, text] of Object.entries(await everywhere(daemon, sha))) expect(text.includes(LEAK), where).toBe(false);
  }, 300_000);
});

describe('a rejected unsigned commit (source.verify)', () => {
  let daemon: DaemonProcess;
  afterAll(async () => daemon?.stop(), 180_000);

  it('keeps its 1 MB subject cut, like any other', async () => {
    const dir = join(execFileSync('mktemp', ['-d', '/tmp/gc-bounded-XXXXXX'], { encoding: 'utf8' }).trim());
    mkdirSync(join(dir, 'keys'));
    const key = join(dir, 'keys', 'signer');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'signer', '-f', key]);
    const allowed = join(dir, 'keys', 'allowed_signers');
    writeFileSync(allowed, `signer@example.org namespaces="git" ${readFileSync(`${key}.pub`, 'utf8').trim()}\n`);
    daemon = await startDaemonProcess({
      dir,
      pollInterval: '200ms',
      source: ['verify:', `  ssh: { allowedSigners: ${allowed} }`],
      firstCommit: ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${key}`],
    });
    await served(daemon).revision(daemon.git('rev-parse', 'HEAD'));
    const sha = daemon.commit(`${'q'.repeat(1_000_000)}\n`);
    const record = await served(daemon).revision(sha);
    expect(record).toMatchObject({ accepted: false, errors: [expect.stringContaining('nobody signed it')] });
    expect(Array.from(record.subject ?? '')).toHaveLength(SUBJECT_CHARS);
    for (const [where, text] of Object.entries(await everywhere(daemon, sha))) expect(text.includes(LEAK), where).toBe(false);
  }, 120_000);
});
