// A transcript's first frame and the parts' chunk (lazy-parts.tsx): a file of its own, so the
// chunk has not loaded when the first test starts (a fresh page); the second reloads the kit.
import { act, render, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assistant, user } from '../test/fixtures.js';
import type { ChatMessage } from './controller-types.js';
import { MessageList } from './message-list.js';

const call = {
  id: 'c1',
  type: 'function' as const,
  function: { name: 'search_docs', arguments: '{"q":"offsets"}' },
};

// A restored conversation with every part: a file on the prompt, a regenerated answer
// (‹ 2 / 2 ›) that starts with a tool call and its result, then the text.
const restored = [
  user('u1', '', {
    content: [
      { type: 'text', text: 'Read this' },
      {
        type: 'document',
        source: { type: 'url', value: '/api/threads/t1/files/f1', mimeType: 'text/plain' },
        metadata: { name: 'notes.txt', size: 12 },
      },
    ],
  } as never),
  assistant('tools-1', '', {
    toolCalls: [call],
    branch: { index: 1, count: 2, siblingIds: ['tools-0', 'tools-1'] },
  }),
  { id: 't1', role: 'tool', toolCallId: 'c1', content: '{"hits":2}' } as ChatMessage,
  assistant('a1', 'From the offset.'),
];

/** What the transcript shows: its rows, and each part that is drawn. */
function drawn(container: HTMLElement) {
  return {
    rows: [...container.querySelectorAll('[data-message-id]')].map((e) =>
      e.getAttribute('data-message-id'),
    ),
    empty: container.querySelector('.rc-message-list__empty') !== null,
    file: container.querySelector('[data-part="files"]')?.textContent ?? null,
    versions: container.querySelector('[data-part="branch-nav"]')?.textContent ?? null,
    tool:
      container.querySelector('[data-tool-call-id="c1"]')?.getAttribute('data-tool-status') ?? null,
  };
}

const whole = {
  rows: ['u1', 'tools-1', 't1', 'a1'],
  empty: false,
  file: 'notes.txt (12 B)',
  versions: '2 / 2',
  tool: 'done',
};

afterEach(() => vi.useRealTimers());

describe("a transcript's first frame and its parts", () => {
  it('waits for the chunk (nothing drawn, no empty state), then draws everything in one frame', async () => {
    const { container } = render(<MessageList messages={restored} onSwitchBranch={() => {}} />);
    // Every state the DOM goes through from here, as a screen would show it.
    const states = [JSON.stringify(drawn(container))];
    const observer = new MutationObserver(() => states.push(JSON.stringify(drawn(container))));
    observer.observe(container, { subtree: true, childList: true, attributes: true });
    expect(drawn(container)).toEqual({
      rows: [],
      empty: false,
      file: null,
      versions: null,
      tool: null,
    });
    expect(container.querySelector('[role="log"]')).not.toBeNull();
    await waitFor(() => expect(drawn(container)).toEqual(whole));
    observer.disconnect();
    // No state showed a message without its parts.
    expect([...new Set(states)].map((s) => JSON.parse(s)).filter((d) => d.rows.length > 0)).toEqual(
      [whole],
    );
  });

  it('waits 1 s at most: a chunk not there by then leaves the parts out until it comes', async () => {
    // A fresh copy of the kit: its parts' chunk not loaded.
    vi.resetModules();
    const fresh = await import('./message-list.js');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { container } = render(
      <fresh.MessageList messages={restored} onSwitchBranch={() => {}} />,
    );
    expect(drawn(container).rows).toEqual([]);
    act(() => {
      vi.advanceTimersByTime(999);
    });
    expect(drawn(container).rows).toEqual([]);
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(drawn(container)).toEqual({
      rows: ['u1', 'tools-1', 'a1'],
      empty: false,
      file: null,
      versions: null,
      tool: null,
    });
    vi.useRealTimers();
    await waitFor(() => expect(drawn(container)).toEqual(whole));
  });
});
