// The HTTP face of the daemon: status pages, the JSON API, live events, webhooks, health and metrics.
// It reads the status store and asks the reconciler and the source for work; it never talks to a node.
// Who may do what is access.ts; every answer carries helmet's headers (a CSP with no inline script).

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Logger } from 'pino';
import { identityProof, NONCE_FORM } from '../daemon-identity.js';
import { errorSpec } from '../errors.js';
import { redactSecrets } from '../inventory/secret.js';
import { type RolloutHalt, rolloutOf } from '../reconciler/rollout-view.js';
import type { NodeDetail, NodeDetailSource, NodeStatus, StatusStore } from '../reconciler/status-store.js';
import { DeliveryLog, HOOK_KINDS, type HookKind, verifyHook } from '../source/webhooks.js';
import { type AccessPolicy, checkHost, crossOrigin, requireToken } from './access.js';
import { DEFAULT_EVENT_STREAM_LIMITS, type EventStreamLimits, EventStreams } from './event-stream.js';
import type { Metrics } from './metrics.js';
import { nodesJsonChunks } from './node-json.js';
import { filtered, type NodeQuery, parseNodeQuery, queryNodes, queryString } from './node-query.js';
import { type OverviewInput, overviewPage, overviewRegions, PAGE_SIZE } from './overview-page.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import { type NodeView, nodePage, nodeRegions } from './pages.js';
import { RejectionLog } from './rejection-log.js';
import { revisionsPage, revisionsRegions, rolloutPage, rolloutRegions } from './revision-pages.js';

export interface ServerDeps {
  status: StatusStore;
  metrics: Metrics;
  log: Logger;
  /** The branch the source follows: hooks for other branches are acknowledged and ignored. */
  branch: string;
  /** Look at the source now (a valid webhook). */
  fetchNow: (reason: string) => Promise<void>;
  /** `POST /api/reconcile`: the nodes that will be reconciled (all when none are named). */
  reconcile: (nodes: string[]) => string[];
  /**
   * `POST /api/source/allow-rewind`: the operator allows the head `sha` although it does not descend from the
   * revision in force (source.verify); `applied` when that sha is the source's head and was handed to intake again.
   */
  allowRewind?: (sha: string) => Promise<{ applied: boolean }>;
  /** `GET /api/plan`: what a pass would change on each node now, tested against its facts. */
  plan: (nodes: string[]) => Promise<unknown>;
  hookSecrets: Partial<Record<HookKind, string>>;
  /** The token, and the Host names the daemon answers to. */
  access: AccessPolicy;
  /** `/api/plan` runs commands on every node: at most this many a minute (default 6). */
  planPerMinute?: number;
  /** Ready once the first revision was read and the reconciler runs, and while the source is not stalled. */
  ready: () => { ready: true } | { ready: false; reason: string };
  /** What the reconciler's rollout knows of a revision: halted by the failure budget, and which nodes failed. */
  rollout?: (sha: string) => RolloutHalt;
  /** `POST /api/rollouts/:sha/resume`: releases the revision's halt; the failed nodes it released (none: not halted). */
  resume?: (sha: string) => string[];
  /** Cluster mode: the history and reports of nodes another member drives (read from etcd). */
  detail?: NodeDetailSource;
  bodyLimit?: number;
  /** `/hooks/*`: at most this many posts a minute from one client address (default 600: ten a second, above any Git host's pushes; the webhook-latency benchmark posts 200), the rest answered 429. */
  hooksPerMinute?: number;
  /** Refused webhooks after the first are said in one summary line at most this often (default 60 s). */
  hookLogPeriodMs?: number;
  /** /api/events: the cap on clients and each one's unsent bytes (defaults in event-stream.ts). */
  eventStreams?: Partial<EventStreamLimits>;
  /** This start's identity key (its runtime record holds it): `GET /api/identity` proves the daemon knows it. */
  identityKey?: string;
}

type Query = Record<string, string | string[] | undefined>;

/** What an error means and what to do about it, from the registry; null for no error or an unknown code. */
function helpFor(code: string | undefined): { meaning: string; todo: string } | null {
  const spec = code === undefined ? undefined : errorSpec(code);
  return spec ? { meaning: spec.meaning, todo: spec.todo } : null;
}

export function buildServer(deps: ServerDeps): FastifyInstance {
  const root: FastifyInstance = Fastify({
    loggerInstance: deps.log.child({ component: 'http' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // Live event streams never go idle: close them on shutdown instead of waiting for them.
    forceCloseConnections: true,
    bodyLimit: deps.bodyLimit ?? 1024 * 1024,
  });
  root.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        // The filter form is a GET to the page itself: it works with the script off.
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' },
    // The daemon speaks plain HTTP on its own; HSTS is the TLS proxy's to send.
    strictTransportSecurity: false,
  });
  root.register(rateLimit, { global: false });
  root.addHook('onRequest', checkHost(deps.access));
  // No key the secret rules name leaves the daemon in a JSON answer, wherever it sits.
  root.addHook('preSerialization', async (_request, _reply, payload) => redactSecrets(payload));
  // Routes live in a child so the plugins above have seen them (rate-limit reads each route's config).
  root.register(async (app) => routes(app, deps));
  return root;
}

function routes(app: FastifyInstance, deps: ServerDeps): void {
  const { status } = deps;
  const guarded = requireToken(deps.access);

  app.get('/healthz', async () => ({ ok: true }));
  // No token: the CLI asks this before it sends one, and only a daemon that knows its record's key can answer.
  const { identityKey } = deps;
  if (identityKey)
    app.get<{ Querystring: { nonce?: string } }>('/api/identity', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const nonce = request.query.nonce;
      if (typeof nonce !== 'string' || !NONCE_FORM.test(nonce)) return reply.code(400).send({ error: 'nonce: 32 to 128 hex digits' });
      const { localAddress, localPort } = request.socket;
      return { proof: identityProof(identityKey, nonce, { address: localAddress, port: localPort }) };
    });
  app.get('/readyz', async (_req, reply) => {
    const ready = deps.ready();
    return ready.ready ? ready : reply.code(503).send(ready);
  });
  app.get('/metrics', async (_req, reply) => reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()));

  // No parameter: the full list, as ever. Filters, sort and paging: the page's nodes, the total and the next
  // page's link in headers (GitHub's style: X-Total-Count and Link rel="next"), the body still a list.
  app.get<{ Querystring: Query }>('/api/nodes', async (request, reply) => {
    const json = (nodes: readonly NodeStatus[]) =>
      reply.type('application/json; charset=utf-8').send(Readable.from(nodesJsonChunks(nodes)));
    if (Object.keys(request.query).length === 0) return json(status.list());
    const parsed = parseNodeQuery(request.query);
    if ('error' in parsed) return reply.code(400).send({ error: parsed.error });
    const page = queryNodes(status.list(), parsed.query);
    if ('error' in page) return reply.code(400).send({ error: page.error });
    reply.header('x-total-count', String(page.total));
    if (page.next) reply.header('link', `</api/nodes${queryString(parsed.query, { cursor: page.next })}>; rel="next"`);
    return json(page.nodes);
  });
  /** The node's history and reports: this process's own, or (cluster mode) its owner's; never throws. */
  const detailOf = async (name: string): Promise<NodeDetail & { unreadable?: string }> => {
    const shared = await deps.detail?.(name).catch((err: Error) => ({ unreadable: `not read from etcd: ${err.message}` }));
    if (!shared) return status.detail(name);
    return 'unreadable' in shared ? { history: [], reports: [], unreadable: shared.unreadable } : shared;
  };
  app.get<{ Params: { name: string } }>('/api/nodes/:name', async (request, reply) => {
    const node = status.get(request.params.name);
    if (!node) return reply.code(404).send({ error: `no node ${request.params.name}` });
    const { history, reports, unreadable } = await detailOf(node.name);
    return {
      ...node,
      history,
      reports,
      ...(unreadable ? { detailUnreadable: unreadable } : {}),
      help: helpFor(node.lastError?.code),
    };
  });
  app.get('/api/revisions', async () => status.revisions());
  // HTML skips the JSON hook's redaction: what a page renders is redacted here, by the same rules.
  const rolloutFor = (sha: string) => redactSecrets(rolloutOf(status.list(), sha, deps.rollout?.(sha)));
  const revisions = () => redactSecrets(status.revisions());
  app.get<{ Params: { sha: string } }>('/api/revisions/:sha', async (request, reply) => {
    const revision = findRevision(request.params.sha);
    if (!revision) return reply.code(404).send({ error: `no recent revision ${request.params.sha}` });
    return { ...revision, rollout: revision.accepted ? rolloutFor(revision.sha) : undefined };
  });
  app.post<{ Params: { sha: string } }>('/api/rollouts/:sha/resume', { onRequest: guarded }, async (request, reply) => {
    const revision = findRevision(request.params.sha);
    if (!revision?.accepted || !deps.resume)
      return reply.code(404).send({ error: `no accepted recent revision ${request.params.sha.slice(0, 40)}` });
    const released = deps.resume(revision.sha);
    if (released.length === 0) return reply.code(409).send({ error: `the rollout of ${revision.sha.slice(0, 12)} is not halted` });
    deps.log.warn({ revision: revision.sha, released }, 'rollout halt released by an operator (rollout resume): the held nodes go on');
    return { revision: revision.sha, released };
  });
  const planLimit = { max: deps.planPerMinute ?? 6, timeWindow: '1 minute', hook: 'preHandler' as const };
  app.get<{ Querystring: { nodes?: string } }>(
    '/api/plan',
    { onRequest: guarded, config: { rateLimit: planLimit } },
    async (request, reply) => {
      const names = (request.query.nodes ?? '').split(',').filter(Boolean);
      const unknown = names.filter((n) => !status.get(n));
      if (unknown.length > 0) return reply.code(404).send({ error: `no such node: ${unknown.join(', ')}` });
      return deps.plan(names);
    },
  );

  // A read like /api/nodes (no token: the page's EventSource sends none), for the daemon's own pages and
  // non-browser clients; a page of another origin is refused before it holds a connection.
  const streams = new EventStreams(
    status,
    { ...DEFAULT_EVENT_STREAM_LIMITS, ...deps.eventStreams },
    {
      turnedAway: (reason) => deps.metrics.eventStreamsTurnedAway.inc({ reason }),
    },
  );
  deps.metrics.countStreams(() => streams.size);
  app.addHook('onClose', async () => streams.close());
  app.get('/api/events', (request, reply) => {
    const foreign = crossOrigin(request);
    if (foreign !== undefined) return reply.code(403).send({ error: `cross-origin event stream from ${foreign} refused` });
    reply.hijack();
    streams.open(request.raw, reply.raw);
  });

  app.post<{ Body: { nodes?: unknown } }>('/api/reconcile', { onRequest: guarded }, async (request, reply) => {
    const asked = request.body?.nodes;
    if (asked !== undefined && !(Array.isArray(asked) && asked.every((n) => typeof n === 'string')))
      return reply.code(400).send({ error: '"nodes" must be a list of node names' });
    const names = (asked as string[] | undefined) ?? [];
    const unknown = names.filter((n) => !status.get(n));
    if (unknown.length > 0) return reply.code(404).send({ error: `no such node: ${unknown.join(', ')}` });
    return { reconciling: deps.reconcile(names) };
  });

  app.post<{ Body: { sha?: unknown } }>('/api/source/allow-rewind', { onRequest: guarded }, async (request, reply) => {
    const sha = request.body?.sha;
    if (typeof sha !== 'string' || !/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(sha))
      return reply.code(400).send({ error: '"sha" must be a full commit object name (40 or 64 lowercase hex digits)' });
    if (!deps.allowRewind) return reply.code(404).send({ error: 'this source has no history to rewind (a path source)' });
    deps.log.warn({ sha, from: request.ip }, `an operator allowed a rewind to ${sha.slice(0, 12)}`);
    return { allowed: sha, ...(await deps.allowRewind(sha)) };
  });

  const findRevision = (sha: string) => (sha.length >= 4 ? status.revisions().find((r) => r.sha.startsWith(sha)) : undefined);
  const overview = (raw: Query): OverviewInput | { error: string } => {
    const parsed = parseNodeQuery(raw);
    if ('error' in parsed) return parsed;
    const all = status.list();
    const query: NodeQuery = parsed.query;
    // A page at a time (its links keep no limit unless the URL set one).
    const page = queryNodes(all, { ...query, limit: query.limit ?? PAGE_SIZE });
    if ('error' in page) return page;
    return { all, page: { ...page, nodes: redactSecrets(page.nodes) }, query, revisions: revisions(), ready: deps.ready() };
  };
  const html = (reply: FastifyReply, body: string) => reply.type('text/html; charset=utf-8').send(body);
  app.get<{ Querystring: Query }>('/', async (request, reply) => {
    const input = overview(request.query);
    if ('error' in input) return reply.code(400).type('text/plain').send(`${input.error}\n`);
    return html(reply, overviewPage(input));
  });
  app.get<{ Querystring: Query }>('/fragments/overview', async (request, reply) => {
    const input = overview(request.query);
    if ('error' in input) return reply.code(400).send({ error: input.error });
    return { filtered: filtered(input.query), regions: overviewRegions(input) };
  });
  app.get('/revisions', async (_req, reply) => html(reply, revisionsPage(revisions(), rolloutFor)));
  app.get('/fragments/revisions', async () => ({ regions: revisionsRegions(revisions(), rolloutFor) }));
  app.get<{ Params: { sha: string } }>('/revisions/:sha', async (request, reply) => {
    const revision = findRevision(request.params.sha);
    const sha = revision?.sha ?? request.params.sha;
    if (!revision && !status.list().some((n) => n.desiredRevision === sha))
      return reply.code(404).type('text/plain').send(`no recent revision ${request.params.sha}\n`);
    return html(reply, rolloutPage(revision && redactSecrets(revision), rolloutFor(sha)));
  });
  app.get<{ Params: { sha: string } }>('/fragments/revisions/:sha', async (request) => {
    const revision = findRevision(request.params.sha);
    return { regions: rolloutRegions(revision && redactSecrets(revision), rolloutFor(revision?.sha ?? request.params.sha)) };
  });
  app.get('/app.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(PAGE_SCRIPT));
  app.get('/app.css', async (_req, reply) => reply.type('text/css; charset=utf-8').send(PAGE_STYLE));
  // Browsers ask for it on every page; an empty answer keeps their consoles clean.
  app.get('/favicon.ico', async (_req, reply) => reply.code(204).send());
  const nodeView = async (name: string): Promise<NodeView | undefined> => {
    const node = status.get(name);
    if (!node) return undefined;
    const { history, reports, unreadable } = await detailOf(name);
    return redactSecrets({ node, history, reports, help: helpFor(node.lastError?.code), ...(unreadable ? { unreadable } : {}) });
  };
  app.get<{ Params: { name: string } }>('/nodes/:name', async (request, reply) => {
    const view = await nodeView(request.params.name);
    if (!view) return reply.code(404).type('text/plain').send(`no node ${request.params.name}\n`);
    return html(reply, nodePage(view));
  });
  app.get<{ Params: { name: string } }>('/fragments/nodes/:name', async (request, reply) => {
    const view = await nodeView(request.params.name);
    if (!view) return reply.code(404).send({ error: `no node ${request.params.name}` });
    return { regions: nodeRegions(view) };
  });

  app.register(async (hooks) => {
    // The signature covers the exact bytes: keep the body raw.
    hooks.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    hooks.removeContentTypeParser('application/json');
    hooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    const deliveries = new DeliveryLog();
    const refused = new RejectionLog(deps.log.child({ component: 'webhooks' }), deps.hookLogPeriodMs ?? 60_000);
    hooks.addHook('onClose', async () => refused.close());
    // Per client address, before the body is read or its signature computed: a flood from one sender costs a
    // 429, and does not hold back a Git host posting from another address.
    const hookLimit = {
      max: deps.hooksPerMinute ?? 600,
      timeWindow: '1 minute',
      onExceeded: (request: FastifyRequest) => {
        const kind = String((request.params as { kind?: unknown }).kind ?? '').slice(0, 32);
        deps.metrics.webhooks.inc({ provider: kind, result: 'rate-limited' });
        refused.rejected(kind, 'rate limited', request.ip);
      },
    };
    hooks.post<{ Params: { kind: string }; Body: Buffer }>('/hooks/:kind', { config: { rateLimit: hookLimit } }, async (request, reply) => {
      const kind = request.params.kind as HookKind;
      if (!HOOK_KINDS.includes(kind)) return reply.code(404).send({ error: `no webhook route for ${request.params.kind}` });
      const secret = deps.hookSecrets[kind];
      const log = deps.log.child({ hook: kind });
      if (!secret) {
        deps.metrics.webhooks.inc({ provider: kind, result: 'disabled' });
        return reply.code(404).send({ error: `${kind} webhooks are not configured` });
      }
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const verdict = verifyHook(kind, request.headers, body, secret);
      if (!verdict.ok) {
        deps.metrics.webhooks.inc({ provider: kind, result: 'rejected' });
        refused.rejected(kind, verdict.reason, request.ip);
        return reply.code(401).send({ error: 'signature check failed' });
      }
      const id = verdict.delivery ?? createHash('sha256').update(body).digest('hex');
      if (!deliveries.first(`${kind}:${id}`)) {
        deps.metrics.webhooks.inc({ provider: kind, result: 'duplicate' });
        log.info({ delivery: id }, 'webhook delivery seen before: ignored');
        return { ignored: 'duplicate delivery' };
      }
      if (verdict.ref && verdict.ref !== `refs/heads/${deps.branch}`) {
        deps.metrics.webhooks.inc({ provider: kind, result: 'other-branch' });
        log.info({ ref: verdict.ref }, `push to ${verdict.ref}, not ${deps.branch}: acknowledged, ignored`);
        return { ignored: `not ${deps.branch}` };
      }
      deps.metrics.webhooks.inc({ provider: kind, result: 'accepted' });
      log.info({ delivery: id, ref: verdict.ref, event: verdict.event }, 'webhook: fetching now');
      void deps.fetchNow(`webhook ${kind}`);
      return reply.code(202).send({ fetching: true });
    });
  });
}
