// Windows PowerShell 5.1's parameter metadata per build (cmdlet-metadata-data.ts, from PSScriptAnalyzer's
// compatibility profiles): what the real-pwsh module declares for the cmdlets the profiles record.

import { METADATA } from './cmdlet-metadata-data.js';

/** [name, .NET type, mandatory (1/0), position (-1: named only), flags: v pipeline, p by property name, r remaining]. */
export type ParamTuple = readonly [string, string, number, number, string];

export interface CommandMetadata {
  module: string;
  defaultSet: string | null;
  shouldProcess: boolean;
  outputType: readonly string[];
  sets: readonly { name: string; params: readonly ParamTuple[] }[];
  allSets: readonly (readonly [string, string])[];
  /** alias -> parameter */
  aliases: Readonly<Record<string, string>>;
}

export type BuildMetadata = Readonly<Record<string, CommandMetadata>>;

export type Build = 14393 | 17763;

/** The profile's record of a command on a build, if the profile has it. */
export function commandMetadata(build: Build, name: string): CommandMetadata | undefined {
  const commands = METADATA[build === 14393 ? '14393' : '17763'];
  const key = Object.keys(commands).find((k) => k.toLowerCase() === name.toLowerCase());
  return key ? commands[key] : undefined;
}
