// Each sink's HTTP request for an event, as its provider documents it. The dispatcher sends them.
//
// - webhook: POST the event as JSON, signed as Standard Webhooks specifies (standard-webhooks.ts): `webhook-id`
//   per event, `webhook-timestamp` and `webhook-signature` per try, so a receiver can refuse a replay.
// - slack: an incoming webhook takes `{"text": …}` (and Block Kit `blocks`) as JSON (api.slack.com/messaging/webhooks).
// - teams: a Workflows (Power Automate) URL from the "Post to a channel when a webhook request is received"
//   template takes `{"type":"message","attachments":[{"contentType":"application/vnd.microsoft.card.adaptive",
//   "contentUrl":null,"content":{AdaptiveCard}}]}`, the message shape Office 365 connectors' incoming webhooks
//   took (MicrosoftDocs/msteams-docs, connectors-using.md, which says to move to Workflows).
// - github: `POST /repos/{owner}/{repo}/statuses/{sha}` with `state` (error|failure|pending|success),
//   `target_url`, `description`, `context`; `Authorization: Bearer`, `Accept: application/vnd.github+json`,
//   `X-GitHub-Api-Version: 2022-11-28` (GitHub REST "Create a commit status").
// - gitlab: `POST /api/v4/projects/:id/statuses/:sha` with `state` (pending|running|success|failed|canceled),
//   `name`, `target_url`, `description`; `PRIVATE-TOKEN` header (GitLab Commits API, "Set the pipeline status of a commit").
// - gitea: `POST /api/v1/repos/{owner}/{repo}/statuses/{sha}` with CreateStatusOption `state`
//   (pending|success|error|failure|warning), `target_url`, `description`, `context`; `Authorization: token …`.

import { randomUUID } from 'node:crypto';
import { EVENT_KINDS, type EventKind, type NotificationEvent, REVISION_EVENTS } from './events.js';
import { signingKey, standardWebhookHeaders } from './standard-webhooks.js';

export const SINK_TYPES = ['webhook', 'slack', 'teams', 'github', 'gitlab', 'gitea'] as const;
export type SinkType = (typeof SINK_TYPES)[number];
const COMMIT_STATUS: readonly SinkType[] = ['github', 'gitlab', 'gitea'];

export interface SinkSpec {
  name: string;
  type: SinkType;
  /** webhook/slack/teams: where to post; github/gitlab/gitea: the API's base (https://api.github.com, https://gitlab.example.com). */
  url: string;
  /** webhook: the HMAC key; github/gitlab/gitea: the token. */
  secret?: string;
  /** github/gitea: owner/name; gitlab: the project's id or path. */
  repo?: string;
  /** The commit status's context (GitLab: name). */
  context?: string;
  events: readonly EventKind[];
}

export interface SinkRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Headers made for each try (a signature over the time it is sent). */
  signed?: (at: Date) => Record<string, string>;
}

/** The events a sink takes when its config names none: commit statuses only take a revision's. */
export function defaultEvents(type: SinkType): readonly EventKind[] {
  return COMMIT_STATUS.includes(type) ? REVISION_EVENTS : EVENT_KINDS;
}

const json = { 'content-type': 'application/json' };
const base = (url: string) => url.replace(/\/+$/, '');
/** GitHub and Gitea cap a status description at 140 characters. */
const clip = (text: string, max = 140) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

type Verdict = 'pending' | 'success' | 'failure' | 'error';
function verdictOf(kind: EventKind): Verdict | undefined {
  switch (kind) {
    case 'revision.accepted':
      return 'pending';
    case 'rollout.finished':
      return 'success';
    case 'rollout.halted':
      return 'failure';
    case 'revision.rejected':
      return 'error';
    default:
      return undefined;
  }
}

function webhook(spec: SinkSpec, e: NotificationEvent): SinkRequest {
  const body = JSON.stringify(e);
  const key = signingKey(spec.secret ?? '');
  // One id for every try of this event: a receiver that saw it once can drop the retries.
  const id = `msg_${randomUUID()}`;
  return {
    url: spec.url,
    headers: { ...json, 'x-groundcrew-event': e.kind },
    body,
    signed: (at) => standardWebhookHeaders(key, id, at, body),
  };
}

const ICON: Record<NotificationEvent['severity'], string> = { info: 'ℹ️', warning: '⚠️', error: '🛑' };

function slack(spec: SinkSpec, e: NotificationEvent): SinkRequest {
  const text = `${ICON[e.severity]} groundcrew: ${e.summary}`;
  return {
    url: spec.url,
    headers: json,
    body: JSON.stringify({
      text,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `${text}\n<${e.url}|open in groundcrew>` } }],
    }),
  };
}

function teams(spec: SinkSpec, e: NotificationEvent): SinkRequest {
  return {
    url: spec.url,
    headers: json,
    body: JSON.stringify({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.2',
            body: [
              {
                type: 'TextBlock',
                text: `groundcrew: ${e.kind}`,
                weight: 'Bolder',
                color: e.severity === 'error' ? 'Attention' : 'Default',
              },
              { type: 'TextBlock', text: e.summary, wrap: true },
            ],
            actions: [{ type: 'Action.OpenUrl', title: 'Open in groundcrew', url: e.url }],
          },
        },
      ],
    }),
  };
}

function commitStatus(spec: SinkSpec, e: NotificationEvent, verdict: Verdict): SinkRequest {
  const sha = e.revision as string;
  const context = spec.context ?? 'groundcrew';
  const description = clip(e.summary);
  const repo = spec.repo ?? '';
  const token = spec.secret ?? '';
  if (spec.type === 'github')
    return {
      url: `${base(spec.url)}/repos/${repo}/statuses/${sha}`,
      headers: {
        ...json,
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${token}`,
        'x-github-api-version': '2022-11-28',
        'user-agent': 'groundcrew',
      },
      body: JSON.stringify({ state: verdict, target_url: e.url, description, context }),
    };
  if (spec.type === 'gitlab') {
    const state = { pending: 'running', success: 'success', failure: 'failed', error: 'failed' }[verdict];
    return {
      url: `${base(spec.url)}/api/v4/projects/${encodeURIComponent(repo)}/statuses/${sha}`,
      headers: { ...json, 'private-token': token },
      body: JSON.stringify({ state, name: context, target_url: e.url, description }),
    };
  }
  return {
    url: `${base(spec.url)}/api/v1/repos/${repo}/statuses/${sha}`,
    headers: { ...json, authorization: `token ${token}` },
    body: JSON.stringify({ state: verdict, target_url: e.url, description, context }),
  };
}

/** The request for `e`, or undefined when this sink has nothing to say about it. */
export function requestFor(spec: SinkSpec, e: NotificationEvent): SinkRequest | undefined {
  if (!spec.events.includes(e.kind)) return undefined;
  switch (spec.type) {
    case 'webhook':
      return webhook(spec, e);
    case 'slack':
      return slack(spec, e);
    case 'teams':
      return teams(spec, e);
    default: {
      const verdict = verdictOf(e.kind);
      return verdict && e.revision ? commitStatus(spec, e, verdict) : undefined;
    }
  }
}
