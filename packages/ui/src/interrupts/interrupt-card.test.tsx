import type { ChatInterrupt } from '@resumable/hooks/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { approval } from '../../test/fixtures.js';
import { partsChunk } from '../lazy-parts.js';
import { ResumableChatView } from '../resumable-chat-view.js';
import { cardsChunk, InterruptCard } from './interrupt-card.js';
import { answerOf, formOf } from './schema-form.js';

// The cards load lazily (src/lazy-parts.test.tsx checks that); here they are already there.
beforeAll(() => cardsChunk.load());
// The transcript's parts chunk (tool-call cards, ‹ n / m ›, files…); its fallbacks: lazy-parts.test.tsx.
beforeAll(() => partsChunk.load());

function setup(interrupt: ChatInterrupt) {
  const calls: [string, string, unknown][] = [];
  render(
    <InterruptCard
      interrupt={interrupt}
      onResolve={(id, payload) => {
        calls.push(['resolve', id, payload]);
      }}
      onCancel={(id) => {
        calls.push(['cancel', id, undefined]);
      }}
      onRerun={(id) => {
        calls.push(['rerun', id, undefined]);
      }}
    />,
  );
  return { calls, user: userEvent.setup() };
}

describe('ApprovalCard', () => {
  it('names the tool and its arguments, takes focus, and approves by keyboard', async () => {
    const { calls, user } = setup(approval);
    const card = screen.getByRole('region', { name: 'Allow delete_file?' });
    // The tool's name isolated in <bdi>, the region's name unchanged.
    expect(card.querySelector('.rc-interrupt__title bdi')!.textContent).toBe('delete_file');
    expect(document.activeElement).toBe(card);
    expect(card.querySelector('pre')?.textContent).toBe('{\n  "path": "notes/old-draft.md"\n}');
    expect(card.textContent).toContain('Delete notes/old-draft.md?');
    await user.tab(); // the reason field
    await user.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Approve' }));
    await user.keyboard('{Enter}');
    expect(calls).toEqual([['resolve', 'i1', { approved: true }]]);
  });

  it('denies with the reason typed, trimmed', async () => {
    const { calls, user } = setup(approval);
    await user.type(screen.getByRole('textbox', { name: 'Reason (optional)' }), '  not now ');
    await user.click(screen.getByRole('button', { name: 'Deny' }));
    expect(calls).toEqual([['resolve', 'i1', { approved: false, reason: 'not now' }]]);
  });
});

describe('QuestionCard', () => {
  const question: ChatInterrupt = {
    ...approval,
    id: 'q1',
    reason: 'question',
    message: 'What should I call the report?',
    tool: null,
    anchor: null,
  };

  it('free text: Enter submits {answer}; Cancel answers cancelled', async () => {
    const { calls, user } = setup(question);
    expect(document.activeElement).toBe(
      screen.getByRole('region', { name: 'What should I call the report?' }),
    );
    await user.type(screen.getByRole('textbox', { name: 'Your answer' }), 'Q3 review{Enter}');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(calls).toEqual([
      ['resolve', 'q1', { answer: 'Q3 review' }],
      ['cancel', 'q1', undefined],
    ]);
  });

  it('a schema object becomes labelled fields; the answer is typed', async () => {
    const responseSchema = {
      type: 'object',
      properties: {
        title: { type: 'string', title: 'Title' },
        pages: { type: 'integer', title: 'Pages' },
        format: { type: 'string', enum: ['pdf', 'html'], title: 'Format' },
        draft: { type: 'boolean', title: 'Draft' },
      },
      required: ['title'],
    };
    const { calls, user } = setup({ ...question, responseSchema });
    await user.type(screen.getByRole('textbox', { name: 'Title' }), 'Q3');
    await user.type(screen.getByRole('spinbutton', { name: 'Pages' }), '12');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Format' }), 'html');
    await user.click(screen.getByRole('checkbox', { name: 'Draft' }));
    await user.click(screen.getByRole('button', { name: 'Answer' }));
    expect(calls).toEqual([
      ['resolve', 'q1', { answer: { title: 'Q3', pages: 12, format: 'html', draft: true } }],
    ]);
  });

  it('a field name is data: "__proto__" is answered as a field like any other', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"x":{"type":"string"}},"required":["__proto__"]}',
    );
    const answer = answerOf(
      formOf(schema),
      new Map([
        ['__proto__', 'a'],
        ['x', 'b'],
      ]),
    );
    expect(JSON.stringify(answer)).toBe('{"__proto__":"a","x":"b"}');
    expect(Object.getPrototypeOf(answer)).toBe(Object.prototype);
  });

  it('a schema beyond the subset is answered as free text', () => {
    expect(formOf({ type: 'array' }).fields.map((f) => f.kind)).toEqual(['text']);
    expect(answerOf(formOf({ type: 'number' }), new Map([['', '4.5']]))).toBe(4.5);
  });
});

describe('answered states and browser tools', () => {
  const cases: [Partial<ChatInterrupt>, string][] = [
    [
      {
        status: 'resolved',
        answeredHere: true,
        answer: { interruptId: 'i1', status: 'resolved', payload: { approved: true } },
      },
      'Approved',
    ],
    [
      {
        status: 'resolved',
        answeredHere: true,
        answer: {
          interruptId: 'i1',
          status: 'resolved',
          payload: { approved: false, reason: 'keep it' },
        },
      },
      'Denied: keep it',
    ],
    [{ status: 'cancelled', answer: { interruptId: 'i1', status: 'cancelled' } }, 'Cancelled'],
    [
      { status: 'resolved', answeredHere: false, answeredBy: 'r9', answer: null },
      'Answered in another tab',
    ],
    [
      {
        status: 'resolved',
        answeredHere: false,
        answeredBy: 'r9',
        answer: { interruptId: 'i1', status: 'resolved', payload: { approved: true } },
      },
      'Approved (in another tab)',
    ],
    [
      {
        pending: 'queued',
        answer: { interruptId: 'i1', status: 'resolved', payload: { approved: true } },
      },
      'Approved — waiting to send',
    ],
  ];
  // Any JSON is a valid answer: another tab (or an API client) may answer with a bare value.
  const question = { ...approval, reason: 'question', tool: null, answeredHere: false };
  const elsewhere = (payload: unknown): Partial<ChatInterrupt> => ({
    ...question,
    status: 'resolved',
    answeredBy: 'r9',
    answer: { interruptId: 'i1', status: 'resolved', payload },
  });
  cases.push(
    [elsewhere(42), 'Answered: 42 (in another tab)'],
    [elsewhere('blue'), 'Answered: blue (in another tab)'],
    [elsewhere(null), 'Answered: null (in another tab)'],
    [elsewhere([1, 2]), 'Answered: [1,2] (in another tab)'],
    [elsewhere({ answer: 'red' }), 'Answered: red (in another tab)'],
    [{ ...elsewhere(7), reason: 'tool_approval' }, 'Denied (in another tab)'],
  );
  it.each(cases)('%o reads "%s"', (patch, text) => {
    setup({ ...approval, ...patch });
    expect(screen.queryByRole('button')).toBeNull();
    expect(document.querySelector('[data-interrupt-id="i1"]')?.textContent).toBe(text);
  });

  it('colours an answer by what it was: approved green, denied red, cancelled muted (data-outcome)', () => {
    const cases: [Partial<ChatInterrupt>, string][] = [
      [
        {
          status: 'resolved',
          answeredHere: true,
          answer: { interruptId: 'i1', status: 'resolved', payload: { approved: true } },
        },
        'approved',
      ],
      [
        {
          status: 'resolved',
          answeredHere: true,
          answer: { interruptId: 'i1', status: 'resolved', payload: { approved: false } },
        },
        'denied',
      ],
      [{ status: 'cancelled', answer: { interruptId: 'i1', status: 'cancelled' } }, 'cancelled'],
      [{ status: 'resolved', answeredBy: 'r9', answer: null }, 'answered'],
      [
        {
          reason: 'question',
          status: 'resolved',
          answeredHere: true,
          answer: { interruptId: 'i1', status: 'resolved', payload: { answer: 'blue' } },
        },
        'answered',
      ],
    ];
    for (const [patch, outcome] of cases) {
      const { unmount } = render(
        <InterruptCard
          interrupt={{ ...approval, ...patch }}
          onResolve={() => {}}
          onCancel={() => {}}
        />,
      );
      expect(document.querySelector('[data-interrupt-id="i1"]')!.getAttribute('data-outcome')).toBe(
        outcome,
      );
      unmount();
    }
  });

  it('isolates an answer or reason in <bdi>: an override in it cannot reverse the words after it', () => {
    const evil = 'keep \u202eit';
    const answered = (payload: unknown, extra: Partial<ChatInterrupt> = {}) => ({
      ...approval,
      status: 'resolved' as const,
      answeredHere: true,
      answer: { interruptId: 'i1', status: 'resolved' as const, payload },
      ...extra,
    });
    for (const [i, text] of [
      [answered({ approved: false, reason: evil }), `Denied: ${evil}`],
      [answered({ answer: evil }, { reason: 'question' }), `Answered: ${evil}`],
      [answered({ approved: false, reason: evil }, { pending: 'queued' }), `Denied: ${evil} — `],
    ] as const) {
      const { unmount } = render(
        <InterruptCard interrupt={i} onResolve={() => {}} onCancel={() => {}} />,
      );
      const p = document.querySelector('[data-interrupt-id="i1"]')!;
      expect(p.textContent!.startsWith(text)).toBe(true);
      expect([...p.querySelectorAll('bdi')].map((b) => b.textContent)).toEqual([evil]);
      unmount();
    }
    // Another tab's answer: its whole summary is the name in "… (in another tab)".
    const elsewhere = answered({ approved: false, reason: evil }, { answeredHere: false });
    render(<InterruptCard interrupt={elsewhere} onResolve={() => {}} onCancel={() => {}} />);
    const p = document.querySelector('[data-interrupt-id="i1"]')!;
    expect(p.textContent).toBe(`Denied: ${evil} (in another tab)`);
    expect(p.querySelector('bdi')!.textContent).toBe(`Denied: ${evil}`);
  });

  it('a browser tool says whether it runs in this page or waits for one', () => {
    const tool = { name: 'read_clipboard', arguments: '{}' };
    const { unmount } = render(
      <InterruptCard
        interrupt={{ ...approval, reason: 'client_tool', tool, execution: 'running' }}
        onResolve={() => {}}
        onCancel={() => {}}
      />,
    );
    expect(screen.getByRole('status').textContent).toBe('Running read_clipboard in this page…');
    expect(screen.getByRole('status').querySelector('bdi')!.textContent).toBe('read_clipboard');
    unmount();
    render(
      <InterruptCard
        interrupt={{ ...approval, reason: 'client_tool', tool }}
        onResolve={() => {}}
        onCancel={() => {}}
      />,
    );
    expect(screen.getByRole('status').textContent).toBe(
      'Waiting for read_clipboard to run in the page',
    );
  });

  it('a tool cut by a reload asks: run again or cancel', async () => {
    const tool = { ...approval, reason: 'client_tool', execution: 'interrupted' as const };
    const { calls, user } = setup({ ...tool, tool: { name: 'read_clipboard', arguments: '{}' } });
    const name =
      'read_clipboard was interrupted by a reload. It may have run already: run it again?';
    expect(document.activeElement).toBe(screen.getByRole('region', { name }));
    await user.click(screen.getByRole('button', { name: 'Run again' }));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(calls).toEqual([
      ['rerun', 'i1', undefined],
      ['cancel', 'i1', undefined],
    ]);
  });
});

describe('in the transcript', () => {
  it('the card sits in its tool call’s message, is announced, and all words come from labels', () => {
    const controller = {
      threadId: 't1',
      runId: 'r1',
      messages: [
        {
          id: 'a1',
          role: 'assistant' as const,
          content: 'It needs your approval.',
          toolCalls: [
            {
              id: 'c1',
              type: 'function' as const,
              function: { name: 'delete_file', arguments: '{}' },
            },
          ],
        },
      ],
      status: 'finished' as const,
      connection: {
        phase: 'finished' as const,
        attempt: 0,
        nextRetryAt: null,
        lastError: null,
        caughtUp: 0,
        resumes: 0,
        offset: 9,
        persistence: 'indexeddb' as const,
      },
      error: null,
      isStreaming: false,
      outbox: [],
      hasOlder: false,
      isLoadingOlder: false,
      interrupts: [approval],
      resolve: async () => {},
      cancel: async () => {},
      send: async () => {},
      stop: async () => {},
      retry: () => {},
      loadOlder: async () => {},
      reset: () => {},
    };
    render(
      <ResumableChatView
        controller={controller}
        labels={{ approve: 'Erlauben', approvalTitle: (t) => `${t} erlauben?` }}
      />,
    );
    const card = screen.getByRole('region', { name: 'delete_file erlauben?' });
    expect(card.closest('[data-message-id]')?.getAttribute('data-message-id')).toBe('a1');
    expect(screen.getByRole('button', { name: 'Erlauben' })).toBeTruthy();
    expect(document.querySelector('[data-part="interrupt-announcer"]')?.textContent).toBe(
      'The assistant needs your answer: delete_file erlauben?',
    );
  });
});
