// `groundcrew validate` and `groundcrew plan`: read an inventory, report, and set the exit code.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { formatDiagnostic } from '../inventory/diagnostic.js';
import { loadInventory } from '../inventory/load-inventory.js';
import { CommitVerifier, type SignaturePolicy, type SignatureVerdict } from '../source/commit-signatures.js';
import { inertJson, inertLines } from './inert-text.js';
import { buildPlan, renderPlan } from './plan-report.js';

export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

/**
 * Exit codes: 0 valid, 1 invalid (every error listed, or the head commit not signed by an allowed key when
 * `verify` is given), 2 could not be read at all.
 */
export async function validateCommand(path: string, io: Output, verify?: SignaturePolicy): Promise<number> {
  if (verify) {
    const verdict = await verifyHead(path, verify).catch((err: Error) => err);
    if (verdict instanceof Error) {
      io.err(`groundcrew: cannot check the signature of ${path}'s head commit: ${verdict.message.split('\n')[0]}`);
      return 2;
    }
    if (!verdict.ok) {
      io.err(`${path}: commit ${verdict.sha.slice(0, 12)} is not trusted: ${verdict.reason}`);
      return 1;
    }
    io.out(`${path}: commit ${verdict.sha.slice(0, 12)} ${verdict.reason}`);
  }
  const loaded = await loadInventory(path).catch((err: Error) => err);
  if (loaded instanceof Error) {
    io.err(`groundcrew: ${inertLines(loaded.message)}`);
    return 2;
  }
  const { root, result } = loaded;
  for (const warning of result.warnings) io.err(inertLines(formatDiagnostic(warning, root)));
  if (!result.ok) {
    for (const error of result.errors) io.err(inertLines(formatDiagnostic(error, root)));
    io.err(`${result.errors.length} error${result.errors.length === 1 ? '' : 's'}: ${path} is not a valid inventory`);
    return 1;
  }
  const nodes = result.state.nodes;
  const windows = nodes.filter((n) => n.os === 'windows').length;
  io.out(`${path}: valid, ${nodes.length} nodes (${nodes.length - windows} Linux, ${windows} Windows)`);
  return 0;
}

export async function planCommand(path: string, options: { json?: boolean }, io: Output): Promise<number> {
  const loaded = await loadInventory(path).catch((err: Error) => err);
  if (loaded instanceof Error) {
    io.err(`groundcrew: ${inertLines(loaded.message)}`);
    return 2;
  }
  const { root, result } = loaded;
  if (!result.ok) {
    for (const diagnostic of [...result.errors, ...result.warnings]) io.err(inertLines(formatDiagnostic(diagnostic, root)));
    io.err(`${path} is not a valid inventory: nothing to plan`);
    return 1;
  }
  const plan = buildPlan(path, result.state);
  io.out(options.json ? inertJson(JSON.stringify(plan, null, 2)) : inertLines(renderPlan(plan, root)));
  return 0;
}

/** The head commit of the Git repository holding `path`, checked as the daemon checks each revision. */
async function verifyHead(path: string, policy: SignaturePolicy): Promise<SignatureVerdict> {
  const dir = statSync(path).isDirectory() ? path : dirname(path);
  const head = execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const work = mkdtempSync(join(tmpdir(), 'groundcrew-verify-'));
  try {
    return await new CommitVerifier(policy, work).verify(dir, head);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
