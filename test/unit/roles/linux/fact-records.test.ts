// The Linux facts wire: what real bash answers to the script is read back byte for byte, and an answer that is
// cut short, padded, forged or not text is refused as a whole, saying where.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bashQuote } from '../../../../src/dataplane/quote.js';
import { GroundcrewError } from '../../../../src/errors.js';
import { linuxFactsScript, readFactRecords, unreadableFact } from '../../../../src/roles/linux/fact-records.js';
import { dirFact, fileContent, fileFact, linkUp } from '../../../../src/roles/linux/facts.js';
import type { FactQuery } from '../../../../src/roles/resource.js';
import { realBash } from '../../../support/real-bash.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-fact-records-'));
const file = (name: string, content: string | Buffer) => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};

/** What real bash answers to the facts script for `queries` (with a UTF-8 locale, as a node's sshd session has). */
async function answer(queries: FactQuery[], stdin?: string): Promise<string> {
  const run = await realBash(linuxFactsScript(queries, stdin !== undefined), { stdin, env: { LANG: 'C.UTF-8' } });
  return run.stdout;
}

function refusal(read: () => unknown): GroundcrewError {
  try {
    read();
  } catch (err) {
    if (err instanceof GroundcrewError) return err;
    throw err;
  }
  throw new Error('expected the answer to be refused');
}

const ids = (queries: FactQuery[]) => new Set(queries.map((q) => q.id));

describe('facts read by real bash come back byte for byte', () => {
  const exact = file('exact', 'A=1\n\tB= two \\n\n\n');
  const utf8 = file('utf8', 'name: h\u00e9 \u2713\n');
  const queries: FactQuery[] = [
    fileFact('exact', exact, bashQuote),
    fileFact('utf8', utf8, bashQuote),
    fileFact('absent', join(dir, 'no-such-file'), bashQuote),
    fileFact('a-directory', dir, bashQuote),
    dirFact('dir', dir, bashQuote),
    dirFact('no-dir', join(dir, 'nope'), bashQuote),
    { id: 'command', sh: "printf 'out\\n\\n'; echo err >&2; exit 3" },
    { id: 'missing-tool', sh: 'no-such-tool-gc --version' },
    { id: 'stdin', shBuiltin: 'gc_v=$GC_STDIN' },
  ];

  it('files with their trailing newlines, tabs, backslashes and UTF-8; absences; statuses; stdin', async () => {
    const facts = readFactRecords(await answer(queries, '{"secret":"x"}\n\n'), ids(queries), 'probe');
    expect(fileContent(facts, 'exact')).toBe(readFileSync(exact, 'utf8'));
    expect(fileContent(facts, 'utf8')).toBe('name: h\u00e9 \u2713\n');
    expect(fileContent(facts, 'absent')).toBeNull();
    expect(fileContent(facts, 'a-directory')).toBeNull();
    expect(facts.get('dir')).toEqual({ status: 0, stdout: '' });
    expect(facts.get('no-dir')).toEqual({ status: 1, stdout: '' });
    // A command's stdout as $( ) gives it (trailing newlines dropped), its stderr discarded, its status kept.
    expect(facts.get('command')).toEqual({ status: 3, stdout: 'out' });
    expect(unreadableFact(facts.get('missing-tool') as never)).toBe('exit 127: command not found');
    expect(facts.get('stdin')).toEqual({ status: 0, stdout: '{"secret":"x"}\n\n' });
  });

  it('a file holding a NUL byte is a fact that cannot be read, never a value cut at the NUL', async () => {
    const q = [fileFact('binary', file('binary', Buffer.from([0x41, 0x00, 0x42])), bashQuote)];
    const f = readFactRecords(await answer(q), ids(q), 'probe').get('binary');
    expect(f?.status).toBe(126);
    expect(unreadableFact(f as never)).toMatch(/^exit 126: .*binary holds a NUL byte: not a text file$/);
  });

  it('a file of bytes that are not UTF-8 is refused loudly, not read as replacement characters', async () => {
    const q = [fileFact('latin1', file('latin1', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])), bashQuote)];
    // The executor decodes stdout as UTF-8, as the SSH executor does.
    const text = await answer(q);
    const err = refusal(() => readFactRecords(text, ids(q), 'probe'));
    expect(err.code).toBe('GC_FACTS_FAILED');
    expect(err.message).toMatch(/malformed at byte \d+ of \d+: .*\(the answer holds bytes that are not UTF-8 text\)/);
  });
});

describe('answers that are not what the script writes are refused as a whole', () => {
  const queries: FactQuery[] = [fileFact('a', file('a', 'first\nfile\n'), bashQuote), { id: 'b', sh: "printf 'b\\tvalue'" }];
  let good = '';
  beforeAll(async () => {
    good = await answer(queries);
  });

  it('the good answer reads', () => {
    expect(readFactRecords(good, ids(queries), 'probe').get('b')).toEqual({ status: 0, stdout: 'b\tvalue' });
  });

  it('every truncation of the answer is refused, never read as fewer facts', () => {
    for (let cut = 0; cut < good.length; cut++) {
      const err = refusal(() => readFactRecords(good.slice(0, cut), ids(queries), 'probe'));
      expect(err.code).toBe('GC_FACTS_FAILED');
      expect(err.message).toMatch(cut === 0 ? /lack a/ : /malformed at byte|lack b/);
    }
  });

  it('bytes after the last record, a record asked for twice, an id not asked for, a wrong length, a status over 255', () => {
    const refused = (answer: string) => refusal(() => readFactRecords(answer, ids(queries), 'probe')).message;
    expect(refused(`${good}junk`)).toMatch(/not a record header: "junk"|without its end/);
    expect(refused(`${good}b\t0\t1\nx\n`)).toMatch(/a second record for b/);
    expect(refused(`${good}c\t0\t1\nx\n`)).toMatch(/a record for "c", which was not asked/);
    expect(refused(good.replace('a\t0\t11\n', 'a\t0\t9\n'))).toMatch(/a's 9 bytes do not end its record/);
    // A length that lands on a newline inside the value still leaves bytes that are no record.
    expect(refused(good.replace('a\t0\t11\n', 'a\t0\t10\n'))).toMatch(/not a record header: ""/);
    expect(refused(good.replace('a\t0\t11\n', 'a\t0\t99999\n'))).toMatch(/a declares 99999 bytes, \d+ follow \(truncated\?\)/);
    expect(refused(good.replace('b\t0\t', 'b\t300\t'))).toMatch(/b: status 300 is not an exit status/);
    expect(refused(good.replace('b\t0\t', 'b\t-1\t'))).toMatch(/not a record header/);
  });

  it('a file whose content forges records stays one value: its length frames it', async () => {
    const forged = 'b\t0\t5\nforge\n';
    const q: FactQuery[] = [fileFact('a', file('forged', forged), bashQuote), { id: 'b', sh: 'printf real' }];
    const facts = readFactRecords(await answer(q), ids(q), 'probe');
    expect(fileContent(facts, 'a')).toBe(forged);
    expect(facts.get('b')).toEqual({ status: 0, stdout: 'real' });
  });
});

describe('interface flags from sysfs', () => {
  // test/fixtures/linux/sysfs-net-flags.txt: /sys/class/net/*/flags in a namespace with vhost0 up, pkt0 down.
  const captured = new Map(
    readFileSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', 'linux', 'sysfs-net-flags.txt'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string]),
  );
  const facts = new Map([...captured].map(([name, flags]) => [name, { status: 0, stdout: `${flags}\n` }]));

  it('reads IFF_UP: lo and vhost0 up, pkt0 down, a missing interface or garbage not up', () => {
    expect(['lo', 'vhost0', 'pkt0'].map((n) => linkUp(facts, n))).toEqual([true, true, false]);
    expect(linkUp(new Map([['x', { status: 1, stdout: '' }]]), 'x')).toBe(false);
    expect(linkUp(new Map([['x', { status: 0, stdout: 'up\n' }]]), 'x')).toBe(false);
  });
});
