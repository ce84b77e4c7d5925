import { render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from './controller-types.js';
import { ToolCall } from './tool-call.js';

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
