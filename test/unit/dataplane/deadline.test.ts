// The one deadline every executor uses: a timeout or a cancel ends the command, once, with the error the caller sees.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { commandName, startDeadline } from '../../../src/dataplane/deadline.js';
import type { GroundcrewError } from '../../../src/errors.js';

describe('startDeadline', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('past its time limit the command is cancelled with GC_COMMAND_TIMEOUT, naming it', () => {
    const cancel = vi.fn<(error: GroundcrewError) => void>();
    const deadline = startDeadline({ timeoutMs: 500 }, commandName('local ', { script: 'true', label: 'facts' }), cancel);
    vi.advanceTimersByTime(499);
    expect(cancel).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(cancel).toHaveBeenCalledOnce();
    expect(deadline.error).toMatchObject({
      code: 'GC_COMMAND_TIMEOUT',
      retryable: true,
      message: 'local command (facts) ran past 500 ms and was ended',
    });
    expect(cancel.mock.calls[0]?.[0]).toBe(deadline.error);
  });

  it("the caller's abort cancels it with GC_COMMAND_ABORTED, and the timeout then does nothing more", () => {
    const controller = new AbortController();
    const cancel = vi.fn<(error: GroundcrewError) => void>();
    const deadline = startDeadline({ timeoutMs: 500, signal: controller.signal }, commandName('w1: ', { script: 'true' }), cancel);
    controller.abort();
    vi.advanceTimersByTime(1000);
    expect(cancel).toHaveBeenCalledOnce();
    expect(deadline.error).toMatchObject({ code: 'GC_COMMAND_ABORTED', retryable: false, message: 'w1: command was cancelled' });
  });

  it('a caller that has already cancelled is refused before anything starts', () => {
    const controller = new AbortController();
    controller.abort();
    const cancel = vi.fn();
    expect(() => startDeadline({ timeoutMs: 500, signal: controller.signal }, 'PowerShell command', cancel)).toThrow(
      expect.objectContaining({ code: 'GC_COMMAND_ABORTED', message: 'PowerShell command was cancelled' }),
    );
    expect(cancel).not.toHaveBeenCalled();
  });

  it('once cleared, neither the timer nor the signal reach the command', () => {
    const controller = new AbortController();
    const cancel = vi.fn();
    const deadline = startDeadline({ timeoutMs: 500, signal: controller.signal }, 'local command', cancel);
    deadline.clear();
    controller.abort();
    vi.advanceTimersByTime(1000);
    expect(cancel).not.toHaveBeenCalled();
    expect(deadline.error).toBeUndefined();
  });
});
