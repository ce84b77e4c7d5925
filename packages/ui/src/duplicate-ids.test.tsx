import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { render } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { assistant, user } from '../test/fixtures.js';
import { partsChunk } from './lazy-parts.js';
import { Message } from './message.js';
import { MessageList } from './message-list.js';

// The transcript's parts chunk (tool-call cards, ‹ n / m ›, files…); its fallbacks: lazy-parts.test.tsx.
beforeAll(() => partsChunk.load());

// Ids are data from the model and the server: two of the same must not collide as React keys
// (React then keeps stale rows and duplicates or drops text on the next render).

const call = (id: string, name: string) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: '{}' },
});

describe('ids and names are data', () => {
  it('two tool calls with one id: each shows once, through every update', () => {
    const names = (c: HTMLElement) =>
      [...c.querySelectorAll('.rc-tool__name')].map((e) => e.textContent);
    const { container, rerender } = render(
      <Message
        message={assistant('a1', '', { toolCalls: [call('x', 'one'), call('x', 'two')] })}
      />,
    );
    expect(names(container)).toEqual(['one', 'two']);
    // A snapshot may replace the calls wholesale.
    const calls = [call('y', 'zero'), call('x', 'one'), call('x', 'two')];
    rerender(<Message message={assistant('a1', '', { toolCalls: calls })} />);
    expect(names(container)).toEqual(['zero', 'one', 'two']);
    rerender(<Message message={assistant('a1', '', { toolCalls: [call('x', 'two')] })} />);
    expect(names(container)).toEqual(['two']);
  });

  it('two messages with one id: the transcript shows exactly what it is given', () => {
    const rows = (c: HTMLElement) =>
      [...c.querySelectorAll('[data-message-id]')].map((e) => e.textContent);
    const { container, rerender } = render(
      <MessageList
        messages={[user('u1', 'hi'), assistant('d', 'first'), assistant('d', 'second')]}
      />,
    );
    expect(rows(container)).toEqual(['You: hi', 'Assistant: first', 'Assistant: second']);
    rerender(<MessageList messages={[assistant('d', 'second')]} />);
    expect(rows(container)).toEqual(['Assistant: second']);
    rerender(
      <MessageList
        messages={[
          user('u1', 'hi'),
          assistant('d', 'first'),
          assistant('d', 'second'),
          assistant('e', 'third'),
        ]}
      />,
    );
    expect(rows(container)).toEqual([
      'You: hi',
      'Assistant: first',
      'Assistant: second',
      'Assistant: third',
    ]);
  });

  it("a tool's name is isolated: its bidi controls cannot reorder the status after it", () => {
    const { container } = render(
      <Message message={assistant('a1', '', { toolCalls: [call('x', 'search\u202E')] })} />,
    );
    const name = container.querySelector('.rc-tool__name')!;
    // Its own bidi run (checked by hand in Chromium: without it, 'Running' was laid out
    // right to left). jsdom does no layout nor this cascade: the kit's stylesheet says it.
    const css = readFileSync(join(import.meta.dirname, 'styles.css'), 'utf8');
    expect(/\.rc-tool__name \{[^}]*unicode-bidi: isolate;/.test(css)).toBe(true);
    expect(name.textContent).toBe('search\u202E');
    expect(name.nextElementSibling!.textContent).toBe('Running');
  });
});
