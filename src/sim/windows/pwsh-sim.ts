// A pwsh-compatible process over a simulated Windows host, so node-powershell can drive the simulator
// (it honours NODE_POWERSHELL). It speaks the protocol node-powershell uses: per invocation, a delimiter
// written to stderr and stdout, the command, and the two delimiters again.
//
// Usage: GC_SIM_STATE=/path/state.json pwsh-sim -NoLogo -NoExit -Command -
// The host's state is read from GC_SIM_STATE (a fresh host when missing) and written back after each command.

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline';
import { WindowsHost } from './windows-host.js';
import { WindowsShell } from './windows-shell.js';
import type { WindowsState } from './windows-state.js';

const DELIMITER = /^\[Console\]::(Out|Error)\.WriteLine\("([^"]*)"\)\s*$/;

const statePath = process.env.GC_SIM_STATE;
const host =
  statePath && existsSync(statePath)
    ? new WindowsHost(JSON.parse(readFileSync(statePath, 'utf8')) as WindowsState)
    : WindowsHost.fresh({ hostname: hostname() });
const shell = await WindowsShell.create();

function save(): void {
  if (!statePath) return;
  writeFileSync(`${statePath}.tmp`, JSON.stringify(host.state));
  renameSync(`${statePath}.tmp`, statePath);
}

function run(script: string): void {
  const result = shell.runScript(host, script);
  if (host.rebootRequested) {
    host.rebootRequested = false;
    host.reboot();
  }
  save();
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
}

type Phase = 'idle' | 'opened' | 'body' | 'closing';
let phase: Phase = 'idle';
let delimiter = '';
let body: string[] = [];

function echo(stream: string, text: string): void {
  (stream === 'Out' ? process.stdout : process.stderr).write(`${text}\n`);
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
  const match = DELIMITER.exec(line);
  const stream = match?.[1];
  const text = match?.[2] ?? '';
  if (phase === 'idle' && stream === 'Error') {
    [phase, delimiter] = ['opened', text];
    echo('Error', text);
  } else if (phase === 'opened' && stream === 'Out' && text === delimiter) {
    [phase, body] = ['body', []];
    echo('Out', text);
  } else if (phase === 'body' && stream === 'Error' && text === delimiter) {
    if (body.some((l) => l.trim() !== '')) run(body.join('\n'));
    phase = 'closing';
    echo('Error', text);
  } else if (phase === 'closing' && stream === 'Out' && text === delimiter) {
    phase = 'idle';
    echo('Out', text);
  } else if (phase === 'body') {
    body.push(line);
  } else if (line.trim() !== '') {
    run(line);
  }
}
