// What groundcrew tells the world about: the events a sink may subscribe to, and their one shape.

export const EVENT_KINDS = [
  'revision.accepted',
  'revision.rejected',
  'rollout.finished',
  'rollout.halted',
  'node.stalled',
  'node.unreachable',
  'node.recovered',
  'drift.found',
  'drift.corrected',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Events about a revision's fate: what a commit status shows. */
export const REVISION_EVENTS: readonly EventKind[] = ['revision.accepted', 'revision.rejected', 'rollout.finished', 'rollout.halted'];

export interface NotificationEvent {
  kind: EventKind;
  at: string;
  severity: 'info' | 'warning' | 'error';
  /** The revision it is about (the full sha). */
  revision?: string;
  node?: string;
  /** One line a person reads. */
  summary: string;
  /** Errors, failed nodes, counts: what the summary rests on. */
  details?: Record<string, unknown>;
  /** The page to open: the revision's rollout or the node's page. */
  url: string;
}

/**
 * Two events with the same key say the same thing: a sink sends it once within its dedup window. A rewind back to a
 * revision already announced says something new (the commit it rewound from): a re-push of an earlier commit is
 * never swallowed as a duplicate of its first acceptance.
 */
export const dedupKey = (e: NotificationEvent): string =>
  [e.kind, e.revision ?? '', e.node ?? '', typeof e.details?.rewindFrom === 'string' ? e.details.rewindFrom : ''].join('\u0000');
