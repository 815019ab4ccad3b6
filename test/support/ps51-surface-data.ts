// The wider 5.1 extract, test/fixtures/windows/ps51-surface.json (written by scripts/ps51-reference-data.ts; its .md
// names the sources): every command name of the 5.1 profiles, the engine's commands with their parameters, the
// variables only 7 documents, and per build the .NET Framework members of the types the guard judges.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface EngineCommand {
  module: string;
  aliases: string[];
  output: string[];
  parameters: string[];
  switches: string[];
  /** Enum-typed parameters and their types. */
  types: Record<string, string>;
  parameter_aliases: Record<string, string>;
  /** The most positional arguments one of 5.1's parameter sets takes (from its syntax lines). */
  positional?: number;
}

interface Members {
  methods: Record<string, number[]>;
  properties: string[];
  fields: string[];
}

export interface TypeMembers {
  present: boolean;
  static?: Members;
  instance?: Members;
  enum?: string[];
}

interface Surface {
  seven_only_variables: string[];
  engine_commands: Record<string, EngineCommand>;
  /** Members PowerShell's built-in type data adds (pwsh 7.6's, accepted rather than judged). */
  ets_members: Record<string, string[]>;
  command_names_in_both: string[];
  builds: Record<
    string,
    { framework: string; command_names: string[]; types: Record<string, TypeMembers>; enums: Record<string, string[]> }
  >;
}

export const SURFACE = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'windows', 'ps51-surface.json'), 'utf8'),
) as Surface;
