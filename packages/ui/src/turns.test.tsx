import { chatTurns } from '@resumable/hooks/turns';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { approval, assistant, user } from '../test/fixtures.js';
import type { ChatMessage } from './controller-types.js';
import { partsChunk } from './lazy-parts.js';
import { TurnParts } from './turns.js';

// The transcript's parts chunk (tool-call cards, ‹ n / m ›, files…); its fallbacks: lazy-parts.test.tsx.
beforeAll(() => partsChunk.load());

const reasoning = { id: 'r1', role: 'reasoning', content: 'Look it up first.' } as ChatMessage;
const tool = (id: string, content: string) =>
  ({ id, role: 'tool', toolCallId: 's1', content }) as ChatMessage;
const call = (id: string, name: string, args: string) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: args },
});

describe('<TurnParts>: a turn of the hooks turn view, drawn by the kit', () => {
  it('reasoning, a tool with its result, Markdown, then a tool waiting for approval with its card', async () => {
    const resolved: unknown[] = [];
    const [prompt, answer] = chatTurns({
      messages: [
        user('u1', 'Find **it**'),
        reasoning,
        assistant('a0', '', { toolCalls: [call('s1', 'search_docs', '{"q":"it"}')] }),
        tool('t1', '{"hits":1}'),
        assistant('a1', 'Found **one**.', { toolCalls: [call('c1', 'delete_file', '{}')] }),
      ],
      interrupts: [approval],
    });
    const controls = {
      resolve: async (id: string, payload: unknown) => void resolved.push([id, payload]),
      cancel: async () => {},
    };
    const { container } = render(
      <>
        <TurnParts turn={prompt!} controls={controls} />
        <TurnParts turn={answer!} controls={controls} />
      </>,
    );
    const [asked, answered] = container.querySelectorAll('.rc-turn-parts');
    // A prompt's text as written (not Markdown).
    expect(asked!.innerHTML).toBe(
      '<div class="rc-message__bubble" data-part="text">Find **it**</div>',
    );
    expect(answered!.getAttribute('data-role')).toBe('assistant');
    const details = answered!.querySelector('details.rc-reasoning')!;
    expect([details.textContent, (details as HTMLDetailsElement).open]).toEqual([
      'ReasoningLook it up first.',
      false,
    ]);
    const tools = [...answered!.querySelectorAll('.rc-tool')];
    expect(tools.map((t) => [t.getAttribute('data-tool-status'), t.textContent])).toEqual([
      ['done', 'search_docsDoneArguments{\n  "q": "it"\n}Result{\n  "hits": 1\n}'],
      ['awaiting_approval', 'delete_fileWaiting for approvalArguments{}'],
    ]);
    await waitFor(() => expect(answered!.querySelector('strong')?.textContent).toBe('one'));
    expect(answered!.querySelector('.rc-message__content')!.getAttribute('data-text')).toBe(
      'Found **one**.',
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(resolved).toEqual([['i1', { approved: true }]]));
  });
});
