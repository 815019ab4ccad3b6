// `notifications:` in the daemon config, and the notifier it builds: sinks with their secrets read from
// files, the dispatcher (outcomes counted in /metrics), and the watcher that turns status changes into events.

import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { z } from 'zod';
import { redactSecrets } from '../inventory/secret.js';
import { Dispatcher } from '../notifications/dispatcher.js';
import { EVENT_KINDS } from '../notifications/events.js';
import { proxiedFetch } from '../notifications/proxy-fetch.js';
import { defaultEvents, SINK_TYPES, type SinkSpec } from '../notifications/sinks.js';
import { watchStatus } from '../notifications/watch.js';
import type { RolloutHalt } from '../reconciler/rollout-view.js';
import type { StatusStore } from '../reconciler/status-store.js';
import type { Metrics } from '../server/metrics.js';

const Duration = z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?(ms|s|m|h)$/, 'a duration such as 30s, 10m or 1h')]);

const Sink = z.strictObject({
  name: z.string().min(1),
  type: z.enum(SINK_TYPES),
  /** webhook/slack/teams: the URL; github/gitlab/gitea: the API's base URL. */
  url: z.string().optional(),
  /** A Slack or Teams webhook URL is itself a secret: read it from a file. */
  urlFile: z.string().optional(),
  /** webhook: the HMAC key. */
  secretFile: z.string().optional(),
  /** github/gitlab/gitea: the API token. */
  tokenFile: z.string().optional(),
  repo: z.string().optional(),
  context: z.string().optional(),
  events: z.array(z.enum(EVENT_KINDS)).optional(),
  perMinute: z.number().int().min(1).optional(),
  dedup: Duration.optional(),
  retries: z.number().int().min(0).max(20).optional(),
  backoff: Duration.optional(),
  timeout: Duration.optional(),
});

export const NotificationsSchema = z
  .strictObject({
    /** The status page's address as people reach it (links in messages, commit statuses' target_url). */
    pageUrl: z.string().optional(),
    sinks: z.array(Sink).default([]),
  })
  .default({ sinks: [] });

export type NotificationsConfig = z.infer<typeof NotificationsSchema>;

const ms = (value: number | string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value * 1000;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value) as RegExpExecArray;
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
};

const read = (file: string) => readFileSync(file, 'utf8').trim();

/** Each sink's spec, secrets read from their files; a sink missing what its type needs is a config error. */
export function sinkSpecs(config: NotificationsConfig): SinkSpec[] {
  return config.sinks.map((s) => {
    const url = s.urlFile ? read(s.urlFile) : s.url;
    if (!url) throw new Error(`notifications: sink "${s.name}" needs url or urlFile`);
    const secretFile = s.type === 'webhook' ? s.secretFile : ['github', 'gitlab', 'gitea'].includes(s.type) ? s.tokenFile : undefined;
    if ((s.type === 'webhook' || ['github', 'gitlab', 'gitea'].includes(s.type)) && !secretFile)
      throw new Error(`notifications: sink "${s.name}" (${s.type}) needs ${s.type === 'webhook' ? 'secretFile' : 'tokenFile'}`);
    if (['github', 'gitlab', 'gitea'].includes(s.type) && !s.repo)
      throw new Error(`notifications: sink "${s.name}" (${s.type}) needs repo`);
    return {
      name: s.name,
      type: s.type,
      url,
      ...(secretFile ? { secret: read(secretFile) } : {}),
      ...(s.repo ? { repo: s.repo } : {}),
      ...(s.context ? { context: s.context } : {}),
      events: s.events ?? defaultEvents(s.type),
    };
  });
}

/** Starts notifying; returns the function that stops it. */
export function startNotifications(
  config: NotificationsConfig,
  deps: { status: StatusStore; rollout: (sha: string) => RolloutHalt; metrics: Metrics; log: Logger; url: string },
): () => void {
  if (config.sinks.length === 0) return () => {};
  const log = deps.log.child({ component: 'notifications' });
  const dispatcher = new Dispatcher(
    sinkSpecs(config).map((spec, i) => {
      const s = config.sinks[i] as NotificationsConfig['sinks'][number];
      const policy = {
        ...(s.perMinute ? { perMinute: s.perMinute } : {}),
        ...(s.retries !== undefined ? { retries: s.retries } : {}),
        ...(s.dedup !== undefined ? { dedupMs: ms(s.dedup) } : {}),
        ...(s.backoff !== undefined ? { backoffMs: ms(s.backoff) } : {}),
        ...(s.timeout !== undefined ? { timeoutMs: ms(s.timeout) } : {}),
      };
      return { spec, policy };
    }),
    {
      log,
      onOutcome: (sink, outcome) => deps.metrics.notifications.inc({ sink: sink.name, type: sink.type, result: outcome }),
      // Through the site's proxy, as the daemon's environment names it (http_proxy, https_proxy, no_proxy).
      fetch: proxiedFetch(process.env),
    },
  );
  // What leaves the daemon is redacted by the inventory's secret rules, as every JSON answer is.
  const stop = watchStatus(deps.status, (e) => dispatcher.publish(redactSecrets(e)), {
    pageUrl: (config.pageUrl ?? deps.url).replace(/\/+$/, ''),
    rollout: deps.rollout,
  });
  return () => {
    stop();
    dispatcher.stop();
  };
}
