// The external controller a simulated Linux host may stand for: Keystone as kolla-ansible deploys it (port
// 5000) with nova-api's version list beside it (8774), and the Contrail config API (8082). Neither is anything groundcrew deploys: the host is made with them.

import { createHash } from 'node:crypto';
import type { HttpRequest, HttpResponse } from '../network.js';

export interface ControllerState {
  /** Keystone's admin user and a digest of its password (the state file never holds the password). */
  keystone?: { user: string; passwordSha256: string };
  /** Objects the Contrail config API holds. */
  configApi?: { virtualRouters: Record<string, { ip: string }> };
}

export const passwordDigest = (password: string) => createHash('sha256').update(password).digest('hex');

const json = (status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const unauthorized = () =>
  json(401, { error: { code: 401, message: 'The request you have made requires authentication.', title: 'Unauthorized' } });

/** The admin user's password checked against the digest, and the project (tenant) it is scoped to: admin. */
function admits(k: NonNullable<ControllerState['keystone']>, user: unknown, password: unknown, project: unknown): boolean {
  return user === k.user && typeof password === 'string' && passwordDigest(password) === k.passwordSha256 && project === 'admin';
}

/**
 * Keystone as Ocata/Pike (what c-a-d's kolla-ansible deploys) serves both Identity APIs: v2.0 `POST /v2.0/tokens`
 * (tenantName and passwordCredentials; 200 with access.token.id) and v3 `POST /v3/auth/tokens` (identity.password
 * and a project scope; 201 with X-Subject-Token). Keystone's API references (identity v2.0 "Authenticate", v3
 * "Password authentication with scoped authorization"). A body of the other API fails its schema (400); any
 * other path, `/v3/tokens` among them, is 404.
 */
function keystone(k: NonNullable<ControllerState['keystone']>, request: HttpRequest, token: string): HttpResponse {
  const route = request.method === 'POST' ? request.path.replace(/\/$/, '') : '';
  if (route !== '/v2.0/tokens' && route !== '/v3/auth/tokens') return json(404, { error: { code: 404, message: 'Not Found' } });
  let body: { auth?: Record<string, unknown> };
  try {
    body = JSON.parse(request.body) as typeof body;
  } catch {
    return json(400, { error: { code: 400, message: 'Malformed request body', title: 'Bad Request' } });
  }
  const auth = body?.auth ?? {};
  if (route === '/v2.0/tokens') {
    const credentials = auth.passwordCredentials as { username?: unknown; password?: unknown } | undefined;
    if (!credentials)
      return json(400, { error: { code: 400, message: 'Expecting to find passwordCredentials in auth', title: 'Bad Request' } });
    if (!admits(k, credentials.username, credentials.password, auth.tenantName)) return unauthorized();
    return json(200, {
      access: {
        token: { id: token, issued_at: '2019-04-19T10:00:00Z', expires: '2019-04-19T11:00:00Z', tenant: { name: 'admin' } },
        user: { username: k.user },
      },
    });
  }
  const identity = auth.identity as { password?: { user?: { name?: unknown; password?: unknown } } } | undefined;
  if (!identity)
    return json(400, {
      error: { code: 400, message: "Invalid input for field 'identity': 'identity' is a required property", title: 'Bad Request' },
    });
  const user = identity.password?.user;
  const project = (auth.scope as { project?: { name?: unknown } } | undefined)?.project?.name;
  if (!admits(k, user?.name, user?.password, project)) return unauthorized();
  return json(201, { token: { methods: ['password'], user: { name: k.user } } }, { 'x-subject-token': token });
}

function configApi(api: NonNullable<ControllerState['configApi']>, request: HttpRequest, record: (change: string) => void): HttpResponse {
  const match = /^\/virtual-routers\/?$/.exec(request.path);
  if (!match || request.method !== 'POST') return json(404, { error: 'not found' });
  let vr: { fq_name?: string[]; virtual_router_ip_address?: string } | undefined;
  try {
    vr = (JSON.parse(request.body || '{}') as { 'virtual-router'?: typeof vr })['virtual-router'];
  } catch {
    return json(400, { error: 'malformed JSON' });
  }
  const name = vr?.fq_name?.at(-1);
  if (!name || !vr?.virtual_router_ip_address) return json(400, { error: 'virtual-router needs fq_name and virtual_router_ip_address' });
  if (name in api.virtualRouters) return json(409, { error: `virtual-router ${name} already exists` });
  api.virtualRouters[name] = { ip: vr.virtual_router_ip_address };
  record(`config-api create virtual-router ${name}`);
  return json(200, { 'virtual-router': { fq_name: ['default-global-system-config', name] } });
}

/** nova-api's version list (GET /, no token needed), as the controller kolla-ansible deployed serves it with Keystone. */
function novaVersions(request: HttpRequest): HttpResponse {
  if (request.method !== 'GET' || request.path !== '/') return json(404, { itemNotFound: { code: 404, message: 'Not found' } });
  return json(200, { versions: [{ id: 'v2.1', status: 'CURRENT' }] });
}

/** What the controller answers on a port; undefined when it serves nothing there (connection refused). */
export function serveController(
  state: ControllerState,
  port: number,
  request: HttpRequest,
  ctx: { token: string; record: (change: string) => void },
): HttpResponse | undefined {
  if (port === 5000 && state.keystone) return keystone(state.keystone, request, ctx.token);
  if (port === 8774 && state.keystone) return novaVersions(request);
  if (port === 8082 && state.configApi) return configApi(state.configApi, request, ctx.record);
  return undefined;
}
