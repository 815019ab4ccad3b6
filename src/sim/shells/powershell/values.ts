// PowerShell values in the simulator: case-insensitive objects, truthiness, comparison, JSON and text output.

import { PsUnmodelled } from './errors.js';

/** A hashtable or PSCustomObject: ordered, with case-insensitive member names, as in PowerShell. */
export class PsObject {
  readonly #members = new Map<string, { name: string; value: unknown }>();
  readonly typeName: string;
  /** What ToString() gives when it is not the member list (an ErrorRecord gives its message). */
  text?: string;
  /** How the host prints it when it is not the member list (an ErrorRecord prints as an error). */
  display?: string;

  constructor(typeName = 'System.Management.Automation.PSCustomObject', entries: Iterable<[string, unknown]> = []) {
    this.typeName = typeName;
    for (const [name, value] of entries) this.set(name, value);
  }

  static from(record: Record<string, unknown>, typeName?: string): PsObject {
    return new PsObject(typeName, Object.entries(record));
  }

  get(name: string): unknown {
    return this.#members.get(name.toLowerCase())?.value;
  }

  has(name: string): boolean {
    return this.#members.has(name.toLowerCase());
  }

  set(name: string, value: unknown): void {
    const key = name.toLowerCase();
    const existing = this.#members.get(key);
    this.#members.set(key, { name: existing?.name ?? name, value });
  }

  entries(): [string, unknown][] {
    return [...this.#members.values()].map((m) => [m.name, m.value]);
  }

  get isHashtable(): boolean {
    return this.typeName === 'System.Collections.Hashtable' || this.typeName === 'System.Collections.Specialized.OrderedDictionary';
  }
}

/**
 * A .NET enum value: compares and prints as its name, but ConvertTo-Json in Windows PowerShell 5.1
 * writes its number (Get-Service | ConvertTo-Json gives "Status":4), a trap real scripts fall into.
 */
export class PsEnum {
  constructor(
    readonly name: string,
    readonly value: number,
  ) {}
}

export const SERVICE_STATUS: Record<string, number> = { Stopped: 1, StartPending: 2, StopPending: 3, Running: 4 };
export const START_MODE: Record<string, number> = { Boot: 0, System: 1, Automatic: 2, Manual: 3, Disabled: 4 };
export const INSTALL_STATE: Record<string, number> = { Available: 0, Installed: 1, InstallPending: 2, Removed: 3 };

export function psEnum(table: Record<string, number>, name: string): PsEnum {
  return new PsEnum(name, table[name] ?? 0);
}

/** A date as PowerShell's [datetime]: ToString('o') gives ISO 8601. */
export class PsDate {
  constructor(readonly date: Date) {}
}

export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 1 || (value.length === 1 && isTruthy(value[0]));
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'boolean') return value;
  return true;
}

export function toText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (Array.isArray(value)) return value.map(toText).join(' ');
  // A [datetime] in a string is written in the invariant culture: 11/23/2026 10:49:31 (about_Quoting_Rules).
  if (value instanceof PsDate) {
    const d = value.date;
    const two = (n: number) => String(n).padStart(2, '0');
    return `${two(d.getUTCMonth() + 1)}/${two(d.getUTCDate())}/${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  }
  if (value instanceof PsEnum) return value.name;
  if (value instanceof PsObject && value.text !== undefined) return value.text;
  // A .NET object's ToString() is its type's own (a type name, a certificate's subject...): not guessed.
  if (value instanceof PsObject && !value.isHashtable && value.typeName !== 'System.Management.Automation.PSCustomObject')
    throw new PsUnmodelled(`groundcrew sim: the text of a [${value.typeName}] (its ToString()) is outside the simulated subset`);
  if (Buffer.isBuffer(value)) return [...value].join(' ');
  if (value instanceof PsObject)
    return value.isHashtable
      ? 'System.Collections.Hashtable'
      : `@{${value
          .entries()
          .map(([k, v]) => `${k}=${toText(v)}`)
          .join('; ')}}`;
  // A double prints with 15 significant digits, as PowerShell converts it (0.1 + 0.2 is 0.3).
  if (typeof value === 'number' && !Number.isInteger(value) && Number.isFinite(value)) return String(Number(value.toPrecision(15)));
  return String(value);
}

/** PowerShell's -eq: strings compare case-insensitively, the right side converts to the left side's type. */
export function looseEquals(left: unknown, right: unknown): boolean {
  if (left === null || left === undefined) return right === null || right === undefined;
  // Only $null equals $null: '' -eq $null and 0 -eq $null are False.
  if (right === null || right === undefined) return false;
  if (left instanceof PsEnum)
    return typeof right === 'number' ? left.value === right : left.name.toLowerCase() === toText(right).toLowerCase();
  if (typeof left === 'string') return left.toLowerCase() === toText(right).toLowerCase();
  if (typeof left === 'number') return left === Number(right);
  if (typeof left === 'boolean') return left === isTruthy(right);
  return left === right;
}

export function wildcardMatch(text: string, pattern: string, caseSensitive = false): boolean {
  const escaped = pattern
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, caseSensitive ? 's' : 'is').test(text);
}

/**
 * A JSON string as 5.1's JavaScriptSerializer writes it: < > ' & escaped as \u003c \u003e \u0027 \u0026
 * (PowerShell/PowerShell issue 7693; 6+ uses Newtonsoft.Json and leaves them).
 */
function jsonString(text: string): string {
  return JSON.stringify(text).replace(/[<>'&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** ConvertTo-Json as Windows PowerShell 5.1 writes it (compressed form). */
export function toJson(value: unknown, depth: number, level = 0): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return jsonString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof PsDate) return jsonString(value.date.toISOString());
  if (value instanceof PsEnum) return String(value.value);
  if (level > depth) return jsonString(toText(value));
  if (Array.isArray(value)) return `[${value.map((v) => toJson(v, depth, level + 1)).join(',')}]`;
  if (value instanceof PsObject) {
    return `{${value
      .entries()
      .map(([k, v]) => `${jsonString(k)}:${toJson(v, depth, level + 1)}`)
      .join(',')}}`;
  }
  return jsonString(String(value));
}

/** ConvertFrom-Json: JSON objects become PSCustomObjects. */
export function fromJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(fromJson);
  if (value !== null && typeof value === 'object') {
    return new PsObject(
      undefined,
      Object.entries(value).map(([k, v]) => [k, fromJson(v)]),
    );
  }
  return value;
}

/**
 * How the host prints pipeline output that was not converted to text: one line per value. Objects and hashtables
 * go through PowerShell's formatter (a table up to four properties, a list from five, column widths from the
 * data, format files per type), which the simulator does not model: printing one is refused.
 */
export function formatOutput(values: unknown[]): string {
  const lines: string[] = [];
  for (const value of values) {
    // Out-Default prints nothing for $null.
    if (value === null || value === undefined) continue;
    if (value instanceof PsObject && value.display !== undefined) lines.push(value.display);
    else if (value instanceof PsObject)
      throw new PsUnmodelled(
        `groundcrew sim: printing a [${value.typeName}] (PowerShell's table and list formatting) is outside the simulated subset; convert it to text first`,
      );
    else lines.push(toText(value));
  }
  return lines.length > 0 ? `${lines.join('\r\n')}\r\n` : '';
}

/** Pipeline semantics: null is no item, an array is its items, anything else is one item. */
export function toItems(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** What an assignment of pipeline output stores: nothing → null, one item → the item, more → an array. */
export function collapse(items: unknown[]): unknown {
  if (items.length === 0) return null;
  return items.length === 1 ? items[0] : items;
}
