// A node's trouble is logged once per change, not on every retry, and its recovery once (issue 29).

import { EventEmitter } from 'node:events';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { logNodeProblems } from '../../../src/cli/node-problem-log.js';
import type { NodeStatus, StatusEvent } from '../../../src/reconciler/status-store.js';
import { logSink } from '../../support/log-sink.js';

function node(state: string, error?: { code: string; message: string }): NodeStatus {
  return { name: 'win-1', state, ...(error ? { lastError: error } : {}) } as unknown as NodeStatus;
}

describe('logNodeProblems', () => {
  it('says each change of trouble once: unreachable, the same again (nothing), another error, recovered', () => {
    const sink = logSink();
    const lines = () => sink.records();
    const status = new EventEmitter<{ change: [StatusEvent] }>();
    logNodeProblems(status, pino({ level: 'info' }, sink.stream));
    const refused = { code: 'GC_CONNECT', message: 'connect ECONNREFUSED 10.0.0.5:22' };
    for (const n of [
      node('converging'),
      node('unreachable', refused),
      node('unreachable', refused),
      node('unreachable', refused),
      node('unreachable', { code: 'GC_SSH_AUTH', message: 'all configured authentication methods failed' }),
      node('converging'),
      node('verified'),
    ])
      status.emit('change', { type: 'node', node: n });
    expect(lines().map((l) => [l.msg, l.code ?? null])).toEqual([
      ['node unreachable', 'GC_CONNECT'],
      ['node unreachable', 'GC_SSH_AUTH'],
      ['node recovered', null],
    ]);
    expect(lines()[0]).toMatchObject({ node: 'win-1', reason: 'connect ECONNREFUSED 10.0.0.5:22', level: 50 });
  });

  it('a node that keeps retrying says each trouble once and nothing of recovery until it is verified (issue 39)', () => {
    const sink = logSink();
    const status = new EventEmitter<{ change: [StatusEvent] }>();
    logNodeProblems(status, pino({ level: 'info' }, sink.stream));
    const refused = { code: 'GC_CONNECT', message: 'connect ECONNREFUSED 10.0.0.5:22' };
    const retry = [node('converging'), node('backoff', refused), node('converging'), node('unreachable', refused)];
    for (const n of [...retry, ...retry, ...retry, node('converging'), node('verified'), node('verified'), node('unreachable', refused)])
      status.emit('change', { type: 'node', node: n });
    expect(sink.records().map((l) => [l.msg, l.state])).toEqual([
      ['node backoff', 'backoff'],
      ['node unreachable', 'unreachable'],
      ['node recovered', 'verified'],
      ['node unreachable', 'unreachable'],
    ]);
  });
});
