// A problem found in an inventory file, with the place an operator has to look.

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  /**
   * Path relative to the inventory repo root, e.g. `instances.yaml` or `nodes/win1.yaml`; or what else the value
   * came from, e.g. the environment variable `GROUNDCREW_WORKERS` (then line and col are 0: no place in a file).
   */
  file: string;
  line: number;
  col: number;
  severity: Severity;
  message: string;
}

export function formatDiagnostic(d: Diagnostic, pathPrefix = ''): string {
  const tag = d.severity === 'warning' ? 'warning: ' : '';
  const place = d.line > 0 ? `${d.file}:${d.line}:${d.col}` : d.file;
  return `${pathPrefix}${place}: ${tag}${d.message}`;
}

export function byLocation(a: Diagnostic, b: Diagnostic): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col;
}
