#!/usr/bin/env node
// The groundcrew command, and the one composition root: the only place that builds concrete objects.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { demoCommand } from './demo.js';
import { planCommand, validateCommand } from './inventory-commands.js';

const io = { out: (t: string) => process.stdout.write(`${t}\n`), err: (t: string) => process.stderr.write(`${t}\n`) };
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const exampleRepo = join(packageRoot, 'inventory-repo-example');

const program = new Command('groundcrew')
  .description('GitOps for Windows and Linux compute nodes of Contrail clusters, from an instances.yaml in Git')
  .showHelpAfterError();

program
  .command('validate')
  .description('check an inventory repo (or one instances.yaml); lists every error as file:line:col')
  .argument('<path>', 'inventory repo directory, or an instances.yaml file')
  .action(async (path: string) => {
    process.exitCode = await validateCommand(path, io);
  });

program
  .command('plan')
  .description('per node: OS, roles, desired versions, and the phases it needs with the reason for each')
  .argument('<path>', 'inventory repo directory, or an instances.yaml file')
  .option('--json', 'machine-readable output (see docs/plan-json.md)')
  .action(async (path: string, options: { json?: boolean }) => {
    process.exitCode = await planCommand(path, options, io);
  });

program
  .command('demo')
  .description('converge the example inventory (or --repo PATH) on simulated hosts, live in the terminal')
  .option('--repo <path>', 'inventory repo to rehearse', exampleRepo)
  .option('--reboot-seconds <n>', 'how long a simulated reboot takes', '2')
  .action(async (options: { repo: string; rebootSeconds: string }) => {
    process.exitCode = await demoCommand(options.repo, { rebootMs: Number(options.rebootSeconds) * 1000, latencyMs: 20 }, io);
  });

await program.parseAsync(process.argv);
