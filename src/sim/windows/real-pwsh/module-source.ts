// Generates groundcrew's Windows module for real pwsh (GcWindows.psm1) for one Windows build: runtime.ps1, then one
// advanced function per simulated Windows cmdlet with the real cmdlet's parameter sets, types, positions, aliases
// and SupportsShouldProcess. Generated when a bridge starts, not checked in: it follows the catalogue, the
// metadata and the simulated cmdlets as they are, and nothing can go stale.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CmdletSpec, Registry } from '../../shells/powershell/commands.js';
import { UTILITY_CMDLETS } from '../../shells/powershell/utility-cmdlets.js';
import { catalogueEntry } from '../cmdlet-catalogue.js';
import { MODULE_OF } from '../modules.js';
import type { WindowsHost } from '../windows-host.js';
import { type Build, commandMetadata } from './cmdlet-metadata.js';
import { PAGE_BINDING } from './page-binding.js';
import { type CommandDeclaration, fromCatalogue, fromMetadata, type ParamDeclaration } from './param-declarations.js';
import { declaredType } from './param-types.js';

/**
 * Cmdlets that also work on pwsh's own providers (env:, variable:, a Linux path): a call whose path is a Windows
 * one goes to the host, any other to pwsh's own cmdlet.
 */
const PROVIDER_CMDLETS: Record<string, { real: string; paths: string[] }> = {
  'test-path': { real: 'Microsoft.PowerShell.Management\\Test-Path', paths: ['Path', 'LiteralPath'] },
  'get-content': { real: 'Microsoft.PowerShell.Management\\Get-Content', paths: ['Path', 'LiteralPath'] },
  'set-content': { real: 'Microsoft.PowerShell.Management\\Set-Content', paths: ['Path', 'LiteralPath'] },
  'new-item': { real: 'Microsoft.PowerShell.Management\\New-Item', paths: ['Path'] },
  'remove-item': { real: 'Microsoft.PowerShell.Management\\Remove-Item', paths: ['Path', 'LiteralPath'] },
  'get-childitem': { real: 'Microsoft.PowerShell.Management\\Get-ChildItem', paths: ['Path', 'LiteralPath'] },
  'get-itemproperty': { real: 'Microsoft.PowerShell.Management\\Get-ItemProperty', paths: ['Path', 'LiteralPath'] },
  'set-itemproperty': { real: 'Microsoft.PowerShell.Management\\Set-ItemProperty', paths: ['Path', 'LiteralPath'] },
  'copy-item': { real: 'Microsoft.PowerShell.Management\\Copy-Item', paths: ['Path', 'LiteralPath'] },
  'move-item': { real: 'Microsoft.PowerShell.Management\\Move-Item', paths: ['Path', 'LiteralPath'] },
  'get-filehash': { real: 'Microsoft.PowerShell.Utility\\Get-FileHash', paths: ['Path', 'LiteralPath'] },
  'import-module': { real: 'Microsoft.PowerShell.Core\\Import-Module', paths: ['Name'] },
};

/**
 * pwsh's own: the utility cmdlets, Get-Command (real discovery sees the module's functions; the runtime uses it),
 * and New-Object, which makes any .NET type as on a node: its NamedPipeClientStream to '.' reaches the host's
 * served pipes as real unix sockets in the session's TMPDIR (src/sim/transports/pipe-listeners.ts).
 */
const UTILITY = new Set([...UTILITY_CMDLETS.map((c) => c.name.toLowerCase()), 'get-command', 'new-object']);

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

function attributeLines(p: ParamDeclaration): string[] {
  return p.uses.map((u) => {
    const parts = [
      ...(u.set ? [`ParameterSetName = ${quote(u.set)}`] : []),
      ...(u.position !== undefined ? [`Position = ${u.position}`] : []),
      ...(u.mandatory ? ['Mandatory = $true'] : []),
      ...(u.pipeline ? ['ValueFromPipeline = $true'] : []),
      ...(u.byPropertyName ? ['ValueFromPipelineByPropertyName = $true'] : []),
      ...(u.remaining ? ['ValueFromRemainingArguments = $true'] : []),
    ];
    return `    [Parameter(${parts.join(', ')})]`;
  });
}

function paramBlock(spec: CmdletSpec<WindowsHost>, decl: CommandDeclaration): string {
  const simOf = (name: string) => Object.entries(spec.params).find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
  return decl.params
    .map((p) => {
      const type = declaredType(p.dotnetType, simOf(p.name));
      return [
        ...attributeLines(p),
        ...(p.aliases.length > 0 ? [`    [Alias(${p.aliases.map(quote).join(', ')})]`] : []),
        ...(type.validateSet ? [`    [ValidateSet(${type.validateSet.map(quote).join(', ')})]`] : []),
        `    [${type.literal}]`,
        `    \${${p.name}}`,
      ].join('\n');
    })
    .join(',\n');
}

export function declarationOf(build: Build, spec: CmdletSpec<WindowsHost>): CommandDeclaration {
  const meta = commandMetadata(build, spec.name);
  if (meta) return fromMetadata(meta);
  const entry = catalogueEntry(spec.name);
  if (!entry) throw new Error(`real pwsh module: ${spec.name} has neither 5.1 metadata nor a catalogue entry`);
  return fromCatalogue(entry, spec.params, PAGE_BINDING[spec.name]);
}

function functionSource(build: Build, spec: CmdletSpec<WindowsHost>): string {
  const decl = declarationOf(build, spec);
  const provider = PROVIDER_CMDLETS[spec.name.toLowerCase()];
  const binding = [
    'PositionalBinding = $false',
    ...(decl.defaultSet ? [`DefaultParameterSetName = ${quote(decl.defaultSet)}`] : []),
    ...(decl.shouldProcess ? ['SupportsShouldProcess = $true'] : []),
  ];
  const end = [
    '$PSCmdlet',
    '$gc',
    quote(spec.name),
    provider ? quote(provider.real) : "''",
    `@(${(provider?.paths ?? []).map(quote).join(', ')})`,
    decl.shouldProcess ? '$true' : '$false',
  ].join(' ');
  return `function ${spec.name} {
  [CmdletBinding(${binding.join(', ')})]
  param(
${paramBlock(spec, decl)}
  )
  begin { $gc = GcBegin $PSBoundParameters }
  process { if ($MyInvocation.ExpectingInput) { GcInput $gc $PSBoundParameters $_ } }
  end { GcEnd ${end} }
}
`;
}

/** runtime.ps1 and principal.ps1 beside this file (read when a module is made: only the tests and the lab make one). */
const runtime = () => ['runtime.ps1', 'principal.ps1'].map((f) => readFileSync(join(import.meta.dirname, f), 'utf8')).join('\n');

/** The cmdlets the module defines: every simulated Windows cmdlet; pwsh's own utility cmdlets stay real. */
export function moduleCmdlets(registry: Registry<WindowsHost>): CmdletSpec<WindowsHost>[] {
  return [...registry.cmdlets.values()].filter((c) => !UTILITY.has(c.name.toLowerCase()));
}

/** The module's text for a build. Cmdlets whose module the host lacks are defined but exported only once present. */
export function windowsModuleSource(build: Build, registry: Registry<WindowsHost>): string {
  const cmdlets = moduleCmdlets(registry);
  const gated = cmdlets.filter((c) => MODULE_OF[c.name.toLowerCase()]).map((c) => c.name);
  return [
    runtime(),
    `$script:GcGated = @(${gated.map(quote).join(', ')})`,
    `$script:GcCmdlets = @(${cmdlets.map((c) => quote(c.name)).join(', ')})`,
    ...cmdlets.map((c) => functionSource(build, c)),
    'Export-ModuleMember -Function (GcExported)',
    '',
  ].join('\n');
}
