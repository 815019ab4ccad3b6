// PowerShell's variables: a scope per function call (reads look outwards, writes stay local unless
// $script: or $global:), $env:, and the automatic variables the simulator does not model, which are refused
// rather than read as $null (about_Scopes, about_Automatic_Variables, about_Preference_Variables).

import { PsTerminatingError } from './errors.js';
import { notModelled } from './syntax.js';

/**
 * Automatic variables of Windows PowerShell 5.1 the simulator does not fill in. ($IsWindows, $IsLinux and
 * $IsCoreCLR are not among them: 5.1 has no such variables, so they are $null there too.)
 */
const UNMODELLED_AUTOMATIC = new Set([
  '$',
  '^',
  'consolefilename',
  'event',
  'eventargs',
  'eventsubscriber',
  'executioncontext',
  'foreach',
  'home',
  'host',
  'input',
  'myinvocation',
  'nestedpromptlevel',
  'pid',
  'profile',
  'psboundparameters',
  'pscmdlet',
  'pscommandpath',
  'psculture',
  'psdebugcontext',
  'pshome',
  'psscriptroot',
  'pssenderinfo',
  'psuiculture',
  'psversiontable',
  'pwd',
  'sender',
  'shellid',
  'stacktrace',
  'switch',
  'this',
]);

/** Preference variables as a fresh Windows PowerShell 5.1 session has them. */
export const PREFERENCE_DEFAULTS: Record<string, unknown> = {
  ErrorActionPreference: 'Continue',
  ProgressPreference: 'Continue',
  WarningPreference: 'Continue',
  VerbosePreference: 'SilentlyContinue',
  DebugPreference: 'SilentlyContinue',
  InformationPreference: 'SilentlyContinue',
  ConfirmPreference: 'High',
  WhatIfPreference: false,
  PSEdition: 'Desktop',
};

const READ_ONLY = new Set(['true', 'false', 'null', '?', 'error', 'psedition']);

interface Scope {
  values: Map<string, unknown>;
  /** `[int]$n = 1` makes every later assignment to $n in this scope a conversion to [int] (about_Variables). */
  types?: Map<string, string>;
  /** `$private:x`: seen only in this scope, not in the scopes it calls (about_Scopes). */
  hidden?: Set<string>;
}

const newScope = (): Scope => ({ values: new Map() });

export class Scopes {
  readonly #stack: Scope[] = [newScope()];

  /** Runs `body` in a new child scope (a function call, a script block), and drops the scope afterwards. */
  inChild<T>(body: () => T): T {
    this.#stack.push(newScope());
    try {
      return body();
    } finally {
      this.#stack.pop();
    }
  }

  #target(scope: 'outer' | 'local' | 'any'): Scope {
    return (scope === 'outer' ? this.#stack[0] : this.#stack.at(-1)) as Scope;
  }

  /** The type an assignment to this variable converts to, where that assignment would write. */
  constraint(name: string): string | undefined {
    const { key, scope } = this.#split(name);
    return this.#target(scope).types?.get(key);
  }

  constrain(name: string, type: string): void {
    const { key, scope } = this.#split(name);
    const target = this.#target(scope);
    target.types ??= new Map();
    target.types.set(key, type);
  }

  /** `$script:x` / `$global:x` -> the outermost scope; `$local:x` / `$private:x` -> this one. */
  #split(name: string): { key: string; scope: 'outer' | 'local' | 'any' } {
    const lower = name.toLowerCase();
    const at = lower.indexOf(':');
    if (at < 0) return { key: lower, scope: 'any' };
    const prefix = lower.slice(0, at);
    const key = lower.slice(at + 1);
    if (prefix === 'script' || prefix === 'global') return { key, scope: 'outer' };
    if (prefix === 'local' || prefix === 'private') return { key, scope: 'local' };
    throw notModelled(`the variable $${name} (the ${prefix}: drive or scope)`);
  }

  has(name: string): boolean {
    const { key } = this.#split(name);
    return this.#stack.some((s) => s.values.has(key));
  }

  get(name: string): unknown {
    const { key, scope } = this.#split(name);
    const current = this.#stack.at(-1);
    const scopes = scope === 'outer' ? [this.#stack[0]] : scope === 'local' ? [current] : [...this.#stack].reverse();
    for (const s of scopes) if (s?.values.has(key) && (s === current || !s.hidden?.has(key))) return s.values.get(key);
    if (UNMODELLED_AUTOMATIC.has(key)) throw notModelled(`the automatic variable $${key}`);
    return null;
  }

  set(name: string, value: unknown): void {
    const { key, scope } = this.#split(name);
    if (READ_ONLY.has(key))
      throw new PsTerminatingError(
        `Cannot overwrite variable ${key} because it is read-only or constant.`,
        'VariableNotWritable',
        `WriteError: (${key}:String) [], SessionStateUnauthorizedAccessException`,
      );
    const target = this.#target(scope);
    target.values.set(key, value);
    if (name.toLowerCase().startsWith('private:')) {
      target.hidden ??= new Set();
      target.hidden.add(key);
    }
  }

  /** What the interpreter itself keeps up to date ($?, $Error, $Matches, $_): no read-only check. */
  setAutomatic(name: string, value: unknown, everywhere = false): void {
    const key = name.toLowerCase();
    this.#target(everywhere ? 'outer' : 'local').values.set(key, value);
  }
}
