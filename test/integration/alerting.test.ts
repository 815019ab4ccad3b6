// The alerting rules and the Grafana dashboard in deploy/: promtool checks the rules and runs their unit
// tests; the dashboard is valid JSON whose every query parses as PromQL (promtool checks it as a rule) and
// names only metrics the daemon exports on /metrics (read from a running daemon, not a list kept by hand).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimDaemon, startSimDaemon } from '../support/sim-daemon.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy');
const RULES = join(DEPLOY, 'prometheus', 'groundcrew-rules.yaml');
const DASHBOARD = join(DEPLOY, 'grafana', 'groundcrew-dashboard.json');
const promtool = (...args: string[]) => execFileSync('promtool', args, { encoding: 'utf8', cwd: join(DEPLOY, 'prometheus') });

let d: SimDaemon;
let exported: Set<string>;
beforeAll(async () => {
  d = await startSimDaemon();
  const text = await (await fetch(`${d.url}/metrics`)).text();
  exported = new Set();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    exported.add(name as string);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) exported.add(`${name}${suffix}`);
  }
}, 60_000);
afterAll(() => d?.stop());

const metricNames = (expr: string) => [...expr.matchAll(/\bgroundcrew_[a-z0-9_]+/g)].map((m) => m[0]);

interface Panel {
  title: string;
  targets?: { expr: string }[];
}

describe('alerting rules and dashboard', () => {
  it('promtool check rules passes, and the rules unit tests (promtool test rules) pass', () => {
    expect(promtool('check', 'rules', RULES)).toContain('SUCCESS: 9 rules found');
    expect(promtool('test', 'rules', 'groundcrew-rules.test.yaml')).toContain('SUCCESS');
  });

  it("the rules name only metrics the daemon exports (and Prometheus's own up)", () => {
    const names = metricNames(readFileSync(RULES, 'utf8'));
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((n) => !exported.has(n))).toEqual([]);
  });

  it('the dashboard is valid JSON, its queries parse as PromQL, and every metric it names is on /metrics', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { uid: string; panels: Panel[] };
    expect(dashboard.uid).toBe('groundcrew-overview');
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(dashboard.panels.every((p) => (p.targets ?? []).length > 0)).toBe(true);
    const names = [...new Set(exprs.flatMap(metricNames))];
    expect(names.length).toBeGreaterThanOrEqual(10);
    expect(names.filter((n) => !exported.has(n))).toEqual([]);
    // Grafana's variables replaced by what they stand for, each query checked by promtool's parser.
    const dir = mkdtempSync(join(tmpdir(), 'gc-dash-'));
    try {
      const rules = exprs.map((e, i) => {
        const expr = e.replaceAll('$__rate_interval', '5m').replaceAll('$instance', '.*');
        return `      - record: dashboard:query_${i}\n        expr: ${JSON.stringify(expr)}`;
      });
      writeFileSync(join(dir, 'queries.yaml'), `groups:\n  - name: dashboard\n    rules:\n${rules.join('\n')}\n`);
      expect(promtool('check', 'rules', join(dir, 'queries.yaml'))).toContain(`SUCCESS: ${exprs.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
