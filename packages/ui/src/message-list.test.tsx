import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Profiler, useState } from 'react';
import { beforeAll, describe, expect, it } from 'vitest';
import { assistant, user } from '../test/fixtures.js';
import type { ChatMessage } from './controller-types.js';
import { partsChunk } from './lazy-parts.js';
import { Message, type MessageProps } from './message.js';
import { MessageList, stickChunk } from './message-list.js';

// The transcript's parts chunk (tool-call cards, ‹ n / m ›, files…); its fallbacks: lazy-parts.test.tsx.
beforeAll(() => partsChunk.load());

describe('<MessageList>', () => {
  it('is a role="log" named "Conversation", in message order', () => {
    const { container } = render(
      <MessageList messages={[user('u1', 'Hi'), assistant('a1', 'Hello')]} />,
    );
    const log = screen.getByRole('log', { name: 'Conversation' });
    expect(log.getAttribute('aria-live')).toBe('off');
    expect(
      [...container.querySelectorAll('[data-message-id]')].map((e) =>
        e.getAttribute('data-message-id'),
      ),
    ).toEqual(['u1', 'a1']);
  });

  it('shows the empty state, and a typing indicator between Send and the first token', () => {
    const { rerender } = render(<MessageList messages={[]} />);
    expect(screen.getByText('Send a message to start the conversation.')).toBeTruthy();
    rerender(<MessageList messages={[user('u1', 'Hi')]} isStreaming />);
    expect(screen.getByRole('img', { name: 'Thinking…' })).toBeTruthy();
    rerender(
      <MessageList
        messages={[user('u1', 'Hi'), assistant('a1', 'He', { streaming: true })]}
        isStreaming
      />,
    );
    expect(screen.queryByRole('img', { name: 'Thinking…' })).toBeNull();
  });

  it('offers "Load older messages" at the top and says when it is loading', async () => {
    let loads = 0;
    const { rerender } = render(
      <MessageList messages={[user('u1', 'Hi')]} hasOlder onLoadOlder={() => loads++} />,
    );
    await userEvent.setup().click(screen.getByRole('button', { name: 'Load older messages' }));
    expect(loads).toBe(1);
    rerender(
      <MessageList
        messages={[user('u1', 'Hi')]}
        hasOlder
        isLoadingOlder
        onLoadOlder={() => loads++}
      />,
    );
    const busy = screen.getByRole('button', { name: 'Loading older messages…' });
    expect(busy).toHaveProperty('disabled', true);
    rerender(<MessageList messages={[user('u1', 'Hi')]} />);
    expect(screen.queryByRole('button', { name: /older/ })).toBeNull();
  });

  it('takes its strings from labels', () => {
    const labels = {
      transcript: 'Gespräch',
      empty: 'Noch nichts hier.',
      loadOlder: 'Ältere laden',
      loadingOlder: 'Lädt…',
      thinking: 'Denkt nach…',
    };
    const { rerender } = render(<MessageList messages={[]} hasOlder labels={labels} />);
    expect(screen.getByRole('log', { name: 'Gespräch' })).toBeTruthy();
    expect(screen.getByText('Noch nichts hier.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Ältere laden' })).toBeTruthy();
    rerender(
      <MessageList
        messages={[user('u1', 'Hallo')]}
        hasOlder
        isLoadingOlder
        isStreaming
        labels={labels}
      />,
    );
    expect(screen.getByRole('button', { name: 'Lädt…' })).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Denkt nach…' })).toBeTruthy();
  });

  it('keeps the reader in place when a page of older messages is prepended', () => {
    const page = [user('o1', 'old q'), assistant('o2', 'old a')];
    const recent = [user('u1', 'Hi'), assistant('a1', 'Hello')];
    const { rerender } = render(<MessageList messages={recent} hasOlder />);
    const log = screen.getByRole('log');
    // jsdom does no layout: each message is 100px tall.
    Object.defineProperty(log, 'scrollHeight', {
      configurable: true,
      get: () => log.querySelectorAll('[data-message-id]').length * 100,
    });
    rerender(<MessageList messages={recent} hasOlder isLoadingOlder />);
    log.scrollTop = 0;
    rerender(<MessageList messages={[...page, ...recent]} />);
    expect(log.scrollTop).toBe(200);
    // Streaming into the last message is not a prepend.
    log.scrollTop = 50;
    rerender(<MessageList messages={[...page, user('u1', 'Hi'), assistant('a1', 'Hello!')]} />);
    expect(log.scrollTop).toBe(50);
  });

  it('reads no layout while a reply streams (only while a page of history loads)', () => {
    const recent = [user('u1', 'Hi'), assistant('a1', 'Hel', { streaming: true })];
    const { rerender } = render(<MessageList messages={recent} hasOlder isStreaming />);
    const log = screen.getByRole('log');
    let reads = 0;
    Object.defineProperty(log, 'scrollHeight', {
      configurable: true,
      get: () => {
        reads++;
        return 0;
      },
    });
    for (const text of ['Hell', 'Hello', 'Hello!']) {
      rerender(
        <MessageList
          messages={[user('u1', 'Hi'), assistant('a1', text, { streaming: true })]}
          hasOlder
          isStreaming
        />,
      );
    }
    // Reading scrollHeight forces a layout of the whole transcript: none per token.
    expect(reads).toBe(0);
    rerender(<MessageList messages={recent} hasOlder isLoadingOlder isStreaming />);
    expect(reads).toBe(1);
  });

  it('lets go when the user scrolls up, offers "Jump to latest", and follows again after it', async () => {
    // The scrolling library comes in its own chunk, fetched when a list mounts.
    await stickChunk.load();
    render(
      <MessageList
        messages={[user('u1', 'Hi'), assistant('a1', 'Hello', { streaming: true })]}
        isStreaming
      />,
    );
    expect(screen.queryByRole('button', { name: 'Jump to latest' })).toBeNull();
    const log = screen.getByRole('log');
    // jsdom does no layout: give the transcript a scrollable size, as CSS would.
    log.style.overflow = 'auto';
    Object.defineProperty(log, 'scrollHeight', { configurable: true, value: 2000 });
    Object.defineProperty(log, 'clientHeight', { configurable: true, value: 500 });
    act(() => {
      fireEvent.wheel(log, { deltaY: -120 });
    });
    const jump = screen.getByRole('button', { name: 'Jump to latest' });
    await userEvent.setup().click(jump);
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Jump to latest' })).toBeNull(),
    );
  });

  it('shows a tool result inside the call it answers, not as a row of its own', () => {
    const a = assistant('a1', 'Looking it up', {
      toolCalls: [
        { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } },
      ],
    });
    const t = { id: 't1', role: 'tool', toolCallId: 'c1', content: 'found' } as ChatMessage;
    const orphan = {
      id: 't0',
      role: 'tool',
      toolCallId: 'c0',
      content: 'older result',
    } as ChatMessage;
    const { container } = render(
      <MessageList messages={[orphan, a, t, assistant('a2', 'Done')]} />,
    );
    const log = screen.getByRole('log');
    // Rows: the messages not drawn inside a tool call (all three in one answer turn).
    const top = [...log.querySelectorAll('[data-message-id]')].filter(
      (e) => e.parentElement === container.querySelector('.rc-turn'),
    );
    expect(top.map((e) => e.getAttribute('data-message-id'))).toEqual(['t0', 'a1', 'a2']);
    const result = container.querySelector('[data-tool-call-id="c1"] [data-message-id="t1"]')!;
    expect(result.querySelector('[data-part="result"]')!.textContent).toBe('found');
  });
});

/** A custom message component: the default one with a class of its own (stable, as a host's is). */
const Custom = (props: MessageProps) => <Message {...props} className="custom" />;

/** A host's code renderer (stable, as the prop asks). */
const ownCode = (code: string, language: string | null) => (
  <pre className="own-code">{`${language}: ${code}`}</pre>
);

describe('answer turns', () => {
  const reasoning = (id: string, text: string, extra: Partial<ChatMessage> = {}) =>
    ({ id, role: 'reasoning', content: text, ...extra }) as ChatMessage;
  const toolCall = {
    id: 'c1',
    type: 'function' as const,
    function: { name: 'search_docs', arguments: '{}' },
  };
  const versions = { index: 1, count: 2, siblingIds: ['r-old', 'r1'] };
  // The showcase answer's shape: reasoning (the turn's first part, so it holds the versions),
  // a tool call and its result, the text; then the next prompt and a plain answer.
  const thread = (last: Partial<Extract<ChatMessage, { role: 'assistant' }>> = {}) => [
    user('u1', 'How does it resume?'),
    reasoning('r1', 'Look it up first.', { branch: versions } as never),
    assistant('tools-1', '', { toolCalls: [toolCall] }),
    { id: 't1', role: 'tool', toolCallId: 'c1', content: '{"hits":2}' } as ChatMessage,
    assistant('a1', 'From the offset.', last),
    user('u2', 'And then?'),
    assistant('a2', 'Nothing is lost.'),
  ];

  it('one action row per answer, under its last part; ‹ n / m › of its first part; Copy copies its text', async () => {
    const regenerated: string[] = [];
    const switched: [string, number][] = [];
    const { container } = render(
      <MessageList
        messages={thread()}
        onRegenerate={(id) => regenerated.push(id)}
        onSwitchBranch={(id, index) => switched.push([id, index])}
      />,
    );
    const turns = [...container.querySelectorAll('.rc-turn')];
    expect(turns).toHaveLength(2);
    // Each turn: its parts, then its one row, last.
    expect(
      [...turns[0]!.children].map((e) => e.getAttribute('data-message-id') ?? e.className),
    ).toEqual(['r1', 'tools-1', 'a1', 'rc-message__actions']);
    // The prompts have none here (no edit, no versions): the two rows are the turns'.
    expect(container.querySelectorAll('.rc-message__actions')).toHaveLength(2);
    expect(turns[0]!.querySelectorAll('[data-message-id] .rc-message__actions')).toHaveLength(0);
    expect(screen.getAllByRole('button', { name: 'Regenerate' })).toHaveLength(2);
    expect(
      within(turns[0] as HTMLElement).getByRole('group', { name: 'Version 2 of 2' }).textContent,
    ).toBe('2 / 2');
    const u = userEvent.setup();
    await u.click(
      within(turns[0] as HTMLElement).getByRole('button', { name: 'Previous version' }),
    );
    await u.click(within(turns[0] as HTMLElement).getByRole('button', { name: 'Regenerate' }));
    await act(async () => {});
    expect(switched).toEqual([['r1', 0]]);
    expect(regenerated).toEqual(['r1']);
    await u.click(within(turns[0] as HTMLElement).getByRole('button', { name: 'Copy message' }));
    expect(await navigator.clipboard.readText()).toBe('From the offset.');
  });

  it('a settled turn is drawn again when what its rows are drawn with changes: messageComponent, renderCode, allowRemoteImages', () => {
    // A settled answer with a code block and a remote image, under the showcase turn.
    const messages = [
      ...thread(),
      user('u3', 'Show me'),
      assistant('a3', '```ts\nresume()\n```\n\n![chart](https://example.com/chart.png)'),
    ];
    const { container, rerender } = render(<MessageList messages={messages} />);
    const turn = () => container.querySelectorAll('.rc-turn')[2]!;
    expect(container.querySelectorAll('.custom')).toHaveLength(0);
    expect(turn().querySelector('.rc-image-blocked')?.textContent).toBe('Image not loaded: chart');

    rerender(<MessageList messages={messages} messageComponent={Custom} />);
    expect(
      [...container.querySelectorAll('.custom')].map((e) => e.getAttribute('data-message-id')),
    ).toEqual(['u1', 'r1', 'tools-1', 'a1', 'u2', 'a2', 'u3', 'a3']);

    rerender(<MessageList messages={messages} messageComponent={Custom} renderCode={ownCode} />);
    expect(turn().querySelector('[data-part="code"] .own-code')?.textContent).toBe('ts: resume()');

    rerender(
      <MessageList
        messages={messages}
        messageComponent={Custom}
        renderCode={ownCode}
        allowRemoteImages
      />,
    );
    expect(turn().querySelector('.rc-image-blocked')).toBeNull();
    expect(turn().querySelector('img')?.getAttribute('src')).toBe('https://example.com/chart.png');
  });

  it('while it streams: only ‹ n / m ›; stopped: "Stopped" first in the row', () => {
    const { container, rerender } = render(
      <MessageList
        messages={thread({ streaming: true })}
        onRegenerate={() => {}}
        onSwitchBranch={() => {}}
      />,
    );
    const row = () => container.querySelector('.rc-turn > .rc-message__actions')!;
    expect(row().querySelector('[data-part="tools"]')).toBeNull();
    expect(row().querySelector('[data-part="branch-nav"]')).not.toBeNull();
    rerender(
      <MessageList
        messages={thread({ ended: 'stopped' })}
        onRegenerate={() => {}}
        onSwitchBranch={() => {}}
      />,
    );
    expect(row().firstElementChild!.textContent).toBe('Stopped');
    expect(container.querySelectorAll('[data-part="ended"]')).toHaveLength(1);
  });
});

// Profiler's onRender fires once per commit in which the row rendered.
const renders = new Map<string, number>();
function ProfiledMessage(props: MessageProps) {
  return (
    <Profiler id={props.message.id} onRender={(id) => renders.set(id, (renders.get(id) ?? 0) + 1)}>
      <Message {...props} />
    </Profiler>
  );
}

const harness: { push: (delta: string) => void; initial: ChatMessage[] } = {
  push: () => {},
  initial: [],
};
function Harness() {
  const [messages, setMessages] = useState(harness.initial);
  // What the fold does: a new array, and a new object only for the message that changed.
  harness.push = (delta) =>
    setMessages((prev) => {
      const last = prev[prev.length - 1]!;
      const next = prev.slice(0, -1);
      next.push({ ...last, content: `${last.content ?? ''}${delta}` } as ChatMessage);
      return next;
    });
  // Inline labels on purpose: a new object each render must not re-render settled rows.
  return (
    <MessageList
      messages={messages}
      isStreaming
      labels={{ send: 'Send' }}
      messageComponent={ProfiledMessage}
    />
  );
}

describe('re-render guarantee', () => {
  it('1,000 deltas into one message of a 200-message thread render no other message', () => {
    for (let i = 0; i < 199; i++) {
      harness.initial.push(
        i % 2 === 0 ? user(`m${i}`, `question ${i}`) : assistant(`m${i}`, `answer **${i}**`),
      );
    }
    harness.initial.push(assistant('m199', '', { streaming: true }));

    const { container } = render(<Harness />);
    expect(renders.size).toBe(200);
    renders.clear();

    let expected = '';
    for (let i = 0; i < 1000; i++) {
      // A paragraph every 25 words, as replies have: only the last block re-parses.
      const delta = i % 25 === 24 ? `w${i}\n\n` : `w${i} `;
      expected += delta;
      act(() => harness.push(delta));
    }

    expect([...renders.keys()]).toEqual(['m199']);
    expect(renders.get('m199')).toBe(1000);
    const streamed = container.querySelector('[data-message-id="m199"] [data-part="text"]')!;
    expect(streamed.getAttribute('data-text')).toBe(expected);
    const paragraphs = [...streamed.querySelectorAll('p')].map((p) => p.textContent);
    expect(paragraphs).toHaveLength(40);
    expect(paragraphs[39]).toBe(Array.from({ length: 25 }, (_, k) => `w${975 + k}`).join(' '));
  }, 60_000);
});
