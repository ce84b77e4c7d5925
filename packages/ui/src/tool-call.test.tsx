import type { ChatInterrupt } from '@resumable/hooks/core';
import type { ToolCallStatus } from '@resumable/hooks/turns';
import { render } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { approval } from '../test/fixtures.js';
import type { ChatMessage } from './controller-types.js';
import { partsChunk } from './lazy-parts.js';
import { ToolCall } from './tool-call.js';

// The transcript's parts chunk (tool-call cards, ‹ n / m ›, files…); its fallbacks: lazy-parts.test.tsx.
beforeAll(() => partsChunk.load());

afterEach(() => vi.restoreAllMocks());

const call = (args: string) => ({
  id: 'c1',
  type: 'function' as const,
  function: { name: 'search', arguments: args },
});
const result = { id: 't1', role: 'tool', toolCallId: 'c1', content: '{"hits":2}' } as ChatMessage;

describe('<ToolCall> pretty JSON', () => {
  it('indents arguments and result once, not again on a render that does not change them', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const c = call('{"q":"rain"}');
    const { container, rerender } = render(<ToolCall call={c} result={result} />);
    const text = (part: string) => container.querySelector(`[data-part="${part}"]`)!.textContent;
    expect(text('arguments')).toBe('{\n  "q": "rain"\n}');
    expect(text('result')).toBe('{\n  "hits": 2\n}');
    expect(parse).toHaveBeenCalledTimes(2);
    // The row re-renders (a new call object and status, the same text): nothing is parsed.
    rerender(<ToolCall call={{ ...c }} result={{ ...result }} ended="stopped" defaultOpen />);
    rerender(<ToolCall call={call('{"q":"rain"}')} result={result} labels={{ toolDone: 'Ok' }} />);
    expect(parse).toHaveBeenCalledTimes(2);
    rerender(<ToolCall call={call('{"q":"snow"}')} result={result} />);
    expect(text('arguments')).toBe('{\n  "q": "snow"\n}');
    expect(parse).toHaveBeenCalledTimes(3);
  });
});

describe('<ToolCall> states', () => {
  const answered = (payload: unknown, extra: Partial<ChatInterrupt> = {}): ChatInterrupt => ({
    ...approval,
    status: 'resolved',
    answeredHere: true,
    answer: { interruptId: 'i1', status: 'resolved', payload },
    ...extra,
  });
  const failed = { ...result, error: 'disk full' } as ChatMessage;
  const cases: [string, Partial<Parameters<typeof ToolCall>[0]>, ToolCallStatus, string][] = [
    ['its approval open', { interrupt: approval }, 'awaiting_approval', 'Waiting for approval'],
    ['no result yet', {}, 'running', 'Running'],
    ['approved, no result yet', { interrupt: answered({ approved: true }) }, 'running', 'Running'],
    ['approved and answered', { interrupt: answered({ approved: true }), result }, 'done', 'Done'],
    ['its result', { result }, 'done', 'Done'],
    // A denied call gets a result from the continuation too ("you denied it"): not Done.
    [
      'denied, then a result',
      { interrupt: answered({ approved: false, reason: 'keep it' }), result },
      'denied',
      'Denied',
    ],
    [
      'denied here, not sent yet',
      { interrupt: answered({ approved: false }, { status: 'open', pending: 'queued' }) },
      'denied',
      'Denied',
    ],
    [
      'denied in another tab (shared)',
      { interrupt: answered({ approved: false }, { answeredHere: false }) },
      'denied',
      'Denied',
    ],
    [
      'cancelled by a new prompt, then a result',
      {
        interrupt: { ...approval, status: 'cancelled', answer: null },
        result,
      },
      'cancelled',
      'Cancelled',
    ],
    [
      'answered cancelled',
      { interrupt: answered(undefined, { answer: { interruptId: 'i1', status: 'cancelled' } }) },
      'cancelled',
      'Cancelled',
    ],
    ['the reply stopped before its result', { ended: 'stopped' }, 'cancelled', 'Cancelled'],
    ['an error result', { result: failed }, 'failed', 'Failed'],
    ['the reply failed before its result', { ended: 'error' }, 'failed', 'Failed'],
    [
      'answered elsewhere, unknown here, then a result',
      { interrupt: { ...approval, status: 'resolved', answeredBy: 'r9' }, result },
      'done',
      'Done',
    ],
  ];
  it.each(cases)('%s: %s, "%s"', (_what, props, status, label) => {
    const { container } = render(<ToolCall call={call('{}')} {...props} />);
    const tool = container.querySelector('[data-tool-call-id="c1"]')!;
    expect(tool.getAttribute('data-tool-status')).toBe(status);
    const badge = tool.querySelector('.rc-badge')!;
    expect(badge.textContent).toBe(label);
    expect(badge.className).toBe(`rc-badge rc-badge--${status}`);
  });

  it('takes each label from labels', () => {
    const labels = {
      toolAwaitingApproval: 'Wartet',
      toolDenied: 'Abgelehnt',
      toolCancelled: 'Abgebrochen',
      toolFailed: 'Fehlgeschlagen',
    };
    const badge = (props: Partial<Parameters<typeof ToolCall>[0]>) =>
      render(<ToolCall call={call('{}')} labels={labels} {...props} />).container.querySelector(
        '.rc-badge',
      )!.textContent;
    expect(badge({ interrupt: approval })).toBe('Wartet');
    expect(badge({ interrupt: answered({ approved: false }) })).toBe('Abgelehnt');
    expect(badge({ ended: 'stopped' })).toBe('Abgebrochen');
    expect(badge({ ended: 'error' })).toBe('Fehlgeschlagen');
  });
});
