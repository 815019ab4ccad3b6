#!/usr/bin/env node
// The groundcrew command, and the one composition root: the only place that builds concrete objects.

import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { buildInfo, packageRootOf } from './build-info.js';
import { bashCompletion, fishCompletion, zshCompletion } from './completion.js';
import type { ClientOptions } from './daemon-client.js';
import type { TargetFlags } from './daemon-target.js';
import { parseDuration } from './duration.js';
import type { StateDirOptions } from './hosts-commands.js';
import { inertLines } from './inert-text.js';
import type { NodeFilters } from './nodes-commands.js';
import { DEFAULT_CONFIG } from './paths.js';

// Only what every command needs is imported above: each command loads its own modules when it runs, so `--help`,
// `completion` and the client commands never load the daemon (fastify, xstate, the simulator, etcd3).
const stdout = (t: string) => process.stdout.write(`${t}\n`);
const io = { out: stdout, err: (t: string) => process.stderr.write(`${t}\n`) };

/**
 * `-o json|yaml` (beside `--json`) on a read command. YAML is the same data as the JSON: the command writes its JSON,
 * which is printed again as YAML once it has run.
 */
function machineReadable(command: Command): Command {
  let captured: string[] | undefined;
  return command
    .addOption(new Option('-o, --output <format>', 'text (the default), json or yaml').choices(['text', 'json', 'yaml']))
    .hook('preAction', (self) => {
      const output = self.opts().output as string | undefined;
      if (output === 'json' || output === 'yaml') self.setOptionValue('json', true);
      if (output === 'yaml') {
        if (self.opts().watch) self.error('groundcrew: --watch shows a table; -o yaml is for one read');
        captured = [];
        io.out = (t: string) => {
          captured?.push(t);
          return true;
        };
      }
    })
    .hook('postAction', async () => {
      if (!captured) return;
      io.out = stdout;
      const text = captured.join('\n');
      captured = undefined;
      if (process.exitCode && process.exitCode !== 0 && text === '') return;
      const { stringify } = await import('yaml');
      process.stdout.write(stringify(JSON.parse(text)));
    });
}
const packageRoot = packageRootOf(import.meta.dirname);
const exampleRepo = join(packageRoot, 'inventory-repo-example');

const build = buildInfo(packageRoot);
const program = new Command('groundcrew')
  .description('GitOps for Windows and Linux compute nodes of Contrail clusters, from an instances.yaml in Git')
  .version(build.version, '-V, --version', 'the version')
  .showHelpAfterError();

machineReadable(program.command('version'))
  .description('the version, the commit it was built from, and the Node.js it runs on')
  .option('--json', 'machine-readable output')
  .action((options: { json?: boolean }) => {
    if (options.json) io.out(JSON.stringify({ ...build, node: process.version }));
    else io.out(`groundcrew ${build.version} (commit ${build.commit}, Node.js ${process.version})`);
  });

program
  .command('run')
  .description('the daemon: follow the repo, drive every node toward it, serve the status page and API')
  .addOption(
    new Option('--config <file>', 'daemon config (see systemd/groundcrew.example.yaml)').env('GROUNDCREW_CONFIG').default(DEFAULT_CONFIG),
  )
  .action(async (options: { config: string }) => {
    const [{ formatDiagnostic }, { loadDaemonConfig }, { rootLogger }, { tuneDaemonHeap }, { systemdNotifier }, { startDaemon }] =
      await Promise.all([
        import('../inventory/diagnostic.js'),
        import('./daemon-config.js'),
        import('./logger.js'),
        import('./daemon-heap.js'),
        import('../dataplane/native/sd-notify.js'),
        import('./daemon.js'),
      ]);
    const loaded = loadDaemonConfig(options.config);
    if (!loaded.ok) {
      for (const e of loaded.errors) io.err(inertLines(formatDiagnostic(e)));
      process.exitCode = 1;
      return;
    }
    const log = rootLogger(loaded.config.log.level, process.stdout, loaded.config.log.format);
    let heapGrowingPercent: number;
    try {
      heapGrowingPercent = tuneDaemonHeap(process.env.GROUNDCREW_HEAP_GROWING_PERCENT);
    } catch (err) {
      io.err((err as Error).message);
      process.exitCode = 1;
      return;
    }
    log.debug({ heapGrowingPercent }, 'heap growth capped');
    let notifier: ReturnType<typeof systemdNotifier> | undefined;
    if (process.env.NOTIFY_SOCKET) notifier = systemdNotifier();
    let daemon: Awaited<ReturnType<typeof startDaemon>>;
    try {
      daemon = await startDaemon(loaded.config, { log, ...(notifier ? { notifier } : {}) });
    } catch (err) {
      log.debug({ err }, 'start failed');
      const { startupError } = await import('./startup-error.js');
      io.err(`groundcrew run: ${inertLines(startupError(err))}`);
      // What the start left running (a fetch, the simulated hosts) must not keep a daemon that failed alive.
      process.exit(1);
    }
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    log.info('stopping');
    await daemon.stop();
    // All is stopped; a process a hung git left behind (holding one of its pipes open) must not keep
    // the daemon alive past SIGTERM. Logs on a pipe or a file are written synchronously on Linux.
    process.exit(process.exitCode ?? 0);
  });

program
  .command('demo')
  .description('the daemon on a simulated cluster: the example inventory (or --repo PATH) in a temporary Git repo, live on a status page')
  .option('--repo <path>', 'inventory repo to rehearse', exampleRepo)
  .option('--port <n>', 'status page port on 127.0.0.1 (0: any free port)', '7070')
  .option('--reboot-seconds <n>', 'how long a simulated reboot takes', '3')
  .action(async (options: { repo: string; port: string; rebootSeconds: string }) => {
    const { demoCommand } = await import('./demo.js');
    process.exitCode = await demoCommand(
      { repo: options.repo, port: Number(options.port), rebootMs: Number(options.rebootSeconds) * 1000, latencyMs: 20 },
      io,
    );
  });

program
  .command('validate')
  .description('check an inventory repo (or one instances.yaml); lists every error as file:line:col')
  .argument('<path>', 'inventory repo directory, or an instances.yaml file')
  .option('--verify', "also check that the repo's head commit is signed by an allowed key (as source.verify does)")
  .option('--gpg-keyring <file>', 'with --verify: the GPG keys whose signatures are accepted')
  .option('--allowed-signers <file>', 'with --verify: the SSH allowed-signers file whose keys are accepted')
  .action(async (path: string, options: { verify?: boolean; gpgKeyring?: string; allowedSigners?: string }) => {
    if (options.verify && !options.gpgKeyring && !options.allowedSigners) {
      io.err('groundcrew validate --verify: give --gpg-keyring FILE, --allowed-signers FILE, or both');
      process.exitCode = 2;
      return;
    }
    const policy = options.verify
      ? {
          ...(options.gpgKeyring ? { gpgKeyring: resolve(options.gpgKeyring) } : {}),
          ...(options.allowedSigners ? { sshAllowedSigners: resolve(options.allowedSigners) } : {}),
        }
      : undefined;
    const { validateCommand } = await import('./inventory-commands.js');
    process.exitCode = await validateCommand(path, io, policy);
  });

machineReadable(program.command('plan'))
  .description(
    'per node: OS, roles, desired versions, and the phases it needs with the reason for each; with --url, the phases ' +
      'a pass would run now, tested by the daemon against each node (nothing changed)',
  )
  .argument('[path-or-nodes...]', 'inventory repo directory or instances.yaml; with --url, node names (none: all)')
  .option('--json', 'machine-readable output (see docs/plan-json.md)')
  .addOption(new Option('--url <url>', 'ask a running daemon what would run against observed facts'))
  .addOption(new Option('--token-file <file>', 'API token (found on the daemon host by default)').env('GROUNDCREW_API_TOKEN_FILE'))
  .addOption(new Option('--config <file>', "the daemon's config: its token file").env('GROUNDCREW_CONFIG'))
  .action(async (args: string[], options: { json?: boolean; url?: string; tokenFile?: string; config?: string }) => {
    if (options.url) {
      const url = options.url;
      await talk(async () =>
        (await import('./client-commands.js')).observedPlanCommand(
          args,
          { ...(await clientOptions({ ...options, url })), ...(options.json ? { json: true } : {}) },
          io,
        ),
      );
      return;
    }
    if (args.length !== 1) {
      io.err('groundcrew plan: give one inventory path (or --url URL to ask a running daemon)');
      process.exitCode = 2;
      return;
    }
    const { planCommand } = await import('./inventory-commands.js');
    process.exitCode = await planCommand(args[0] as string, options, io);
  });

/** Where the state directory is, for the commands that work on its files: the same config `run` reads. */
function stateDir(command: Command): Command {
  return command
    .option('--config <file>', "the daemon's config: its stateDir")
    .option('--state-dir <dir>', "the state directory itself (default: the config's, else /var/lib/groundcrew)");
}

const hosts = stateDir(
  program.command('hosts').description('host key pins: node, host:port, SHA256 fingerprint and when it was pinned'),
).action(async (options: StateDirOptions) => {
  const { hostsCommand } = await import('./hosts-commands.js');
  process.exitCode = await hostsCommand(options, io);
});

stateDir(
  hosts
    .command('trust')
    .description('re-pin a node whose host key legitimately changed (check the new key out of band first: `ssh-keygen -lf` on the node)')
    .argument('<node>', 'node name as its pin records it, or HOST:PORT')
    .requiredOption('--fingerprint <SHA256:...>', "the new key's fingerprint"),
).action(async (node: string, options: StateDirOptions & { fingerprint: string }, command: Command) => {
  // Options given before `trust` belong to `hosts`.
  const merged = { ...(command.parent?.opts() as StateDirOptions), ...options };
  const { hostsTrustCommand } = await import('./hosts-commands.js');
  process.exitCode = await hostsTrustCommand(node, options.fingerprint, merged, io);
});

/** Where the daemon is, for the commands that talk to it. */
function client(command: Command): Command {
  return (
    command
      // None given: the --config's listen, else the one daemon recorded on this host, else 127.0.0.1:7070 (daemon-target.ts).
      .addOption(new Option('--url <url>', 'the daemon').env('GROUNDCREW_URL'))
      .addOption(new Option('--token-file <file>', 'API token (found on the daemon host by default)').env('GROUNDCREW_API_TOKEN_FILE'))
      .addOption(new Option('--config <file>', "the daemon's config: its token file").env('GROUNDCREW_CONFIG'))
  );
}

async function clientOptions(options: TargetFlags): Promise<ClientOptions> {
  return (await import('./daemon-target.js')).daemonTarget(options);
}

/** The client commands' module, loaded when one runs. */
const clientCommands = () => import('./client-commands.js');

/** `--timeout`'s value in milliseconds; commander prints a refusal as one line and exits 1. */
function durationArg(text: string): number {
  try {
    return parseDuration(text);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

async function talk(run: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await run();
  } catch (err) {
    io.err(`groundcrew: ${inertLines((err as Error).message)}`);
    process.exitCode = err instanceof (await import('./daemon-client.js')).DaemonUnreachable ? 3 : 1;
  }
}

machineReadable(client(program.command('status').description('every node: state, phase, versions, revisions, and why a node is stuck')))
  .option('--json', 'the nodes as JSON (the /api/nodes shape)')
  .option('--watch', 'keep the table up to date')
  .action((options: TargetFlags & { json?: boolean; watch?: boolean }) =>
    talk(async () =>
      (await clientCommands()).statusCommand(
        { ...(await clientOptions(options)), ...(options.json ? { json: true } : {}), ...(options.watch ? { watch: true } : {}) },
        io,
      ),
    ),
  );

client(program.command('reconcile').description('a full pass on the named nodes now (all nodes when none are named)'))
  .argument('[node...]', 'node names')
  .option('--wait', "wait for each node's pass and print its result; exit 1 if any node is not verified")
  .option('--timeout <duration>', 'with --wait: give up after this long: 90s, 2m, 1h30m, or seconds (default 10m)', durationArg)
  .action((nodes: string[], options: TargetFlags & { wait?: boolean; timeout?: number }) =>
    talk(async () =>
      (await clientCommands()).reconcileCommand(
        nodes,
        {
          ...(await clientOptions(options)),
          ...(options.wait ? { wait: true } : {}),
          ...(options.timeout ? { timeoutMs: options.timeout } : {}),
        },
        io,
      ),
    ),
  );

client(
  program
    .command('source')
    .description('the Git source')
    .command('allow-rewind')
    .description('allow the head SHA although it does not descend from the revision in force (source.verify; logged)'),
)
  .argument('<sha>', 'the full commit object name')
  .action((sha: string, options: TargetFlags) =>
    talk(async () => (await clientCommands()).allowRewindCommand(sha, await clientOptions(options), io)),
  );

client(
  program
    .command('rollout')
    .description('rollouts of revisions: release a halted one')
    .command('resume')
    .description('release a halted rollout: the failed nodes so far stop counting against the failure budget, the held nodes go on'),
)
  .argument('<revision>', 'the revision (its sha, or the first 4 or more characters of it)')
  .action((revision: string, options: TargetFlags) =>
    talk(async () => (await clientCommands()).resumeCommand(revision, await clientOptions(options), io)),
  );

client(program.command('history').description("a node's transitions, oldest first, with the revision of each"))
  .argument('<node>', 'node name')
  .action((node: string, options: TargetFlags) =>
    talk(async () => (await clientCommands()).historyCommand(node, await clientOptions(options), io)),
  );

type NodesFlags = TargetFlags & { search?: string; json?: boolean; all?: boolean; names?: boolean } & Omit<NodeFilters, 'q'>;
machineReadable(
  client(
    program
      .command('nodes')
      .description('the nodes a filter selects (the same filters as /api/nodes and the status page), a page at a time'),
  ),
)
  .option('--state <states>', 'state(s), comma-separated: stalled,unreachable')
  .option('--os <os>', 'linux or windows')
  .option('--role <role>', 'a role the node has (vrouter, k8s_node, ...)')
  .option('--label <key[=value]>', 'a label the node has (nodes/<name>.yaml)')
  .option('--revision <sha>', 'the revision applied starts with this (none: never applied)')
  .option('--mode <mode>', 'apply, monitor or autocorrect')
  .option('--search <text>', 'a part of the name')
  .option('--sort <column>', 'name, os, roles, state, phase, version, revision, since or reason; a leading - sorts descending')
  .option('--limit <n>', 'nodes a page (default 100)')
  .option('--cursor <cursor>', 'the page after the one that printed it')
  .option('--all', 'every page')
  .option('--json', 'the nodes as JSON (the /api/nodes shape)')
  .addOption(new Option('--names', 'names only, one a line (for shell completion)').hideHelp())
  .action((options: NodesFlags) => {
    const { search, ...rest } = options;
    return talk(async () =>
      (await import('./nodes-commands.js')).nodesCommand(
        { ...rest, ...(await clientOptions(options)), ...(search ? { q: search } : {}) },
        io,
      ),
    );
  });

machineReadable(
  client(
    program
      .command('explain')
      .description('one node in words: its state, why, since when, the last error and what to do, the commit that asked for it'),
  ),
)
  .argument('<node>', 'node name')
  .option('--json', 'the node as JSON (/api/nodes/NODE)')
  .action((node: string, options: TargetFlags & { json?: boolean }) =>
    talk(async () =>
      (await import('./nodes-commands.js')).explainCommand(
        node,
        { ...(await clientOptions(options)), ...(options.json ? { json: true } : {}) },
        io,
      ),
    ),
  );

program
  .command('completion')
  .description(
    'print a shell completion script: eval "$(groundcrew completion bash)", save the zsh one as _groundcrew on $fpath, ' +
      'or the fish one as ~/.config/fish/completions/groundcrew.fish',
  )
  .argument('<shell>', 'bash, zsh or fish')
  .action((shell: string) => {
    const make = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion }[shell];
    if (!make) {
      io.err('groundcrew completion: bash, zsh or fish');
      process.exitCode = 2;
      return;
    }
    process.stdout.write(make(program));
  });

machineReadable(program.command('cluster').description('cluster mode (several daemons on etcd)').command('status'))
  .description('the members, the lease each holds and what it has left, the nodes each drives, who holds the disruption budget')
  .requiredOption('--config <file>', "a member's daemon config: its cluster section")
  .option('--json', 'machine-readable output')
  .action(async (options: { config: string; json?: boolean }) => {
    const { clusterStatusCommand } = await import('./cluster-commands.js');
    process.exitCode = await clusterStatusCommand(options, io);
  });

await program.parseAsync(process.argv);
