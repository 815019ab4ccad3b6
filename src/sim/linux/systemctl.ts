// systemctl as a simulated Linux host answers it, over the units of its model (docker, containerd).

import { type CommandResult, fail, ok } from '../command-result.js';
import type { LinuxHost } from './linux-host.js';

export function systemctl(host: LinuxHost, argv: string[]): CommandResult {
  const args = argv.filter((a) => !a.startsWith('--') || a === '--now');
  const [verb, rawUnit] = args;
  const unitName = rawUnit?.replace(/\.service$/, '');
  if (verb === 'daemon-reload') return ok();
  if (!verb || !unitName) return fail('Too few arguments.\n');
  const unit = host.state.units[unitName];
  switch (verb) {
    case 'is-active':
      return unit?.active ? ok('active\n') : { stdout: 'inactive\n', stderr: '', exitCode: 3 };
    case 'is-enabled':
      if (!unit) return fail(`Failed to get unit file state for ${unitName}.service: No such file or directory\n`);
      return unit.enabled ? ok('enabled\n') : { stdout: 'disabled\n', stderr: '', exitCode: 1 };
    case 'start':
    case 'stop':
    case 'restart':
    case 'enable':
    case 'disable': {
      if (!unit) return fail(`Failed to ${verb} ${unitName}.service: Unit ${unitName}.service not found.\n`, 5);
      const before = JSON.stringify(unit);
      if (verb === 'start' || verb === 'restart' || args.includes('--now')) unit.active = verb !== 'disable';
      if (verb === 'stop' || (verb === 'disable' && args.includes('--now'))) unit.active = false;
      if (verb === 'enable') unit.enabled = true;
      if (verb === 'disable') unit.enabled = false;
      if (JSON.stringify(unit) !== before || verb === 'restart') host.record(`systemctl ${verb} ${unitName}`);
      return ok();
    }
  }
  return fail(`Unknown command verb ${verb}.\n`);
}
