import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../conversation/state.js';
import type { ChatInterrupt } from '../interrupts/chat-interrupts.js';
import {
  type ChatTurn,
  type ChatTurnsInput,
  chatTurns,
  type ToolCallStatus,
} from './chat-turns.js';

const user = (id: string, content: ChatMessage['content'] = id, extra = {}): ChatMessage =>
  ({ id, role: 'user', content, ...extra }) as ChatMessage;
const assistant = (id: string, content: string, extra: Partial<ChatMessage> = {}): ChatMessage =>
  ({ id, role: 'assistant', content, ...extra }) as ChatMessage;
const reasoning = (id: string, content: string, extra = {}): ChatMessage =>
  ({ id, role: 'reasoning', content, ...extra }) as ChatMessage;
const call = (id: string, name: string, args: string, streaming = false) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: args },
  ...(streaming ? { streaming: true as const } : {}),
});
const tool = (id: string, toolCallId: string, content: string, extra = {}): ChatMessage =>
  ({ id, role: 'tool', toolCallId, content, ...extra }) as ChatMessage;
const interrupt = (over: Partial<ChatInterrupt> & { id: string }): ChatInterrupt => ({
  reason: 'tool_approval',
  runId: 'run-1',
  status: 'open',
  answer: null,
  pending: null,
  answeredBy: null,
  answeredHere: true,
  tool: null,
  anchor: null,
  execution: null,
  ...over,
});

/** What a turn draws, in short: role, key and each part as one line. */
const drawn = (turns: readonly ChatTurn[]) =>
  turns.map((t) => ({
    role: t.role,
    key: t.key,
    streaming: t.streaming,
    parts: t.parts.map((p) => {
      switch (p.type) {
        case 'text':
        case 'reasoning':
          return `${p.type}${p.streaming ? '…' : ''}: ${p.text}`;
        case 'file':
          return `file ${p.kind} ${p.name} ${p.url}`;
        case 'tool':
          return `tool ${p.toolName}(${p.arguments}) ${p.status}${p.result ? ` → ${p.result.error ?? p.result.content}` : ''}${p.interrupt ? ` [${p.interrupt.id}]` : ''}`;
        default:
          return `interrupt ${p.interrupt.reason} ${p.interrupt.id}`;
      }
    }),
  }));

describe('chatTurns: a conversation as turns with ordered parts', () => {
  it('the showcase answer [user, reasoning, assistant (empty) + call, tool, assistant] is one answer', () => {
    const turns = chatTurns({
      messages: [
        user('u1', 'Compare them'),
        reasoning('r1', 'The user wants a table.'),
        assistant('a1', '', { toolCalls: [call('c1', 'search_docs', '{"q":"x"}')] }),
        tool('t1', 'c1', '{"hits":2}'),
        assistant('a2', '| a | b |'),
      ],
    });
    expect(drawn(turns)).toStrictEqual([
      { role: 'user', key: 'u1', streaming: false, parts: ['text: Compare them'] },
      {
        role: 'assistant',
        key: 'r1',
        streaming: false,
        parts: [
          'reasoning: The user wants a table.',
          'tool search_docs({"q":"x"}) done → {"hits":2}',
          'text: | a | b |',
        ],
      },
    ]);
    expect(turns[1]!.messageId).toBe('r1');
    expect(turns[1]!.messages.map((m) => m.id)).toStrictEqual(['r1', 'a1', 't1', 'a2']);
    expect(turns[1]!.parts[1]).toStrictEqual({
      type: 'tool',
      toolCallId: 'c1',
      toolName: 'search_docs',
      arguments: '{"q":"x"}',
      streaming: false,
      status: 'done',
      result: { messageId: 't1', content: '{"hits":2}', error: null },
      interrupt: null,
      messageId: 'a1',
    });
  });

  const approval = (
    status: ChatInterrupt['status'],
    answer: ChatInterrupt['answer'],
    pending: ChatInterrupt['pending'] = null,
  ) => interrupt({ id: 'i1', toolCallId: 'c1', anchor: 'a1', status, answer, pending });
  const resolved = (payload: unknown) => ({
    interruptId: 'i1',
    status: 'resolved' as const,
    payload,
  });

  // Each row: the call's interrupt, its result, how its message ended → the status drawn.
  it.each<
    [
      string,
      ChatInterrupt | null,
      ChatMessage | null,
      ChatMessage['ended'] | undefined,
      ToolCallStatus,
    ]
  >([
    ['no result yet', null, null, undefined, 'running'],
    ['a result', null, tool('t1', 'c1', '42'), undefined, 'done'],
    ['an error result', null, tool('t1', 'c1', '', { error: 'boom' }), undefined, 'failed'],
    ['the reply failed before a result', null, null, 'error', 'failed'],
    ['the reply stopped before a result', null, null, 'stopped', 'cancelled'],
    ['an open approval', approval('open', null), null, undefined, 'awaiting_approval'],
    [
      'an approval answered here, still a draft',
      approval('open', resolved({ approved: true }), 'draft'),
      null,
      undefined,
      'running',
    ],
    [
      'an approval denied',
      approval('resolved', resolved({ approved: false, reason: 'no' })),
      null,
      undefined,
      'denied',
    ],
    [
      'an approval denied, queued',
      approval('open', resolved({ approved: false }), 'queued'),
      null,
      undefined,
      'denied',
    ],
    [
      'an approval cancelled (a new prompt)',
      approval('cancelled', null),
      null,
      undefined,
      'cancelled',
    ],
    [
      'an answer that cancels',
      approval('resolved', { interruptId: 'i1', status: 'cancelled' }),
      null,
      undefined,
      'cancelled',
    ],
    [
      'approved, its result in',
      approval('resolved', resolved({ approved: true })),
      tool('t1', 'c1', 'ok'),
      undefined,
      'done',
    ],
    [
      'approved elsewhere, answer unknown, no result',
      approval('resolved', null),
      null,
      undefined,
      'running',
    ],
    [
      'a denial wins over a stopped reply',
      approval('resolved', resolved({ approved: false })),
      null,
      'stopped',
      'denied',
    ],
  ])('tool status: %s → %s', (_name, i, result, ended, status) => {
    const messages = [
      user('u1'),
      assistant('a1', '', {
        toolCalls: [call('c1', 'delete_file', '{}')],
        ...(ended ? { ended } : {}),
      }),
      ...(result ? [result] : []),
    ];
    const [, answer] = chatTurns({ messages, interrupts: i ? [i] : [] });
    const part = answer!.parts[0]!;
    expect(part.type === 'tool' && [part.status, part.interrupt]).toStrictEqual([status, i]);
  });

  it('a question is a part after the message it is anchored to; the continuation joins the answer', () => {
    const q = interrupt({ id: 'q1', reason: 'question', message: 'Which quarter?', anchor: 'a1' });
    const turns = chatTurns({
      messages: [user('u1'), assistant('a1', 'Let me ask.'), assistant('a2', 'Q3 it is.')],
      interrupts: [q],
    });
    expect(drawn(turns)[1]!.parts).toStrictEqual([
      'text: Let me ask.',
      'interrupt question q1',
      'text: Q3 it is.',
    ]);
  });

  it('an interrupt not in view goes to the last answer, or makes one after a closing prompt', () => {
    const lost = interrupt({ id: 'q9', reason: 'question', anchor: 'gone', runId: 'run-9' });
    expect(
      drawn(chatTurns({ messages: [user('u1'), assistant('a1', 'Hi')], interrupts: [lost] })),
    ).toStrictEqual([
      { role: 'user', key: 'u1', streaming: false, parts: ['text: u1'] },
      {
        role: 'assistant',
        key: 'a1',
        streaming: false,
        parts: ['text: Hi', 'interrupt question q9'],
      },
    ]);
    const turns = chatTurns({ messages: [user('u1')], interrupts: [lost] });
    expect(drawn(turns)).toStrictEqual([
      { role: 'user', key: 'u1', streaming: false, parts: ['text: u1'] },
      { role: 'assistant', key: 'run-9', streaming: false, parts: ['interrupt question q9'] },
    ]);
    expect([turns[1]!.messageId, turns[1]!.messages]).toStrictEqual([null, []]);
  });

  it('streaming: a part that streams, or the last answer while a reply is on its way', () => {
    const messages = [
      user('u1'),
      assistant('a1', 'Done.'),
      user('u2'),
      reasoning('r2', 'Think', { streaming: true }),
      assistant('a2', '', { toolCalls: [call('c2', 'search', '{"q":', true)] }),
    ];
    expect(drawn(chatTurns({ messages, isStreaming: true }))).toStrictEqual([
      { role: 'user', key: 'u1', streaming: false, parts: ['text: u1'] },
      { role: 'assistant', key: 'a1', streaming: false, parts: ['text: Done.'] },
      { role: 'user', key: 'u2', streaming: false, parts: ['text: u2'] },
      {
        role: 'assistant',
        key: 'r2',
        streaming: true,
        parts: ['reasoning…: Think', 'tool search({"q":) running'],
      },
    ]);
    const settled = chatTurns({
      messages: [user('u1'), assistant('a1', 'Done.')],
      isStreaming: true,
    });
    expect(settled[1]!.streaming).toBe(true);
    const prompted = chatTurns({
      messages: [user('u1'), assistant('a1', 'Done.'), user('u2')],
      isStreaming: true,
    });
    expect(prompted.map((t) => t.streaming)).toStrictEqual([false, false, false]);
  });

  it('an empty streaming answer has no parts yet; hidden roles stay in messages only', () => {
    const system = { id: 's1', role: 'system', content: 'rules' } as ChatMessage;
    const turns = chatTurns({
      messages: [system, user('u1'), assistant('a1', '', { streaming: true })],
    });
    expect(drawn(turns)).toStrictEqual([
      { role: 'user', key: 'u1', streaming: false, parts: ['text: u1'] },
      { role: 'assistant', key: 'a1', streaming: true, parts: [] },
    ]);
  });

  it('a prompt: its text, its files (http(s) and paths only), pending; versions, ended', () => {
    const content = [
      { type: 'text', text: 'What is in it?' },
      {
        type: 'image',
        source: { type: 'url', value: '/api/threads/t/files/f1', mimeType: 'image/png' },
        metadata: { name: 'cat.png', size: 120 },
      },
      { type: 'document', source: { type: 'url', value: 'https://example.com/a/report.pdf?x=1' } },
      { type: 'image', source: { type: 'url', value: 'javascript:alert(1)' } },
      { type: 'image', source: { type: 'data', value: 'AAAA', mimeType: 'image/png' } },
    ] as unknown as ChatMessage['content'];
    const branch = { index: 1, count: 2, siblingIds: ['a0', 'a1'] };
    const turns = chatTurns({
      messages: [
        user('u1', content, { pending: 'queued' }),
        assistant('a1', 'Cut', { branch, ended: 'stopped' }),
      ],
    });
    expect(drawn(turns)).toStrictEqual([
      {
        role: 'user',
        key: 'u1',
        streaming: false,
        parts: [
          'text: What is in it?',
          'file image cat.png /api/threads/t/files/f1',
          'file document report.pdf https://example.com/a/report.pdf?x=1',
        ],
      },
      { role: 'assistant', key: 'a0', streaming: false, parts: ['text: Cut'] },
    ]);
    expect(turns[0]!.parts[1]).toStrictEqual({
      type: 'file',
      kind: 'image',
      url: '/api/threads/t/files/f1',
      mimeType: 'image/png',
      name: 'cat.png',
      size: 120,
      messageId: 'u1',
    });
    expect([turns[0]!.pending, turns[1]!.pending]).toStrictEqual(['queued', null]);
    expect([turns[1]!.branch, turns[1]!.ended, turns[1]!.messageId]).toStrictEqual([
      branch,
      'stopped',
      'a1',
    ]);
  });

  it('a turn is versioned by the message that has versions, and names it', () => {
    const branch = { index: 0, count: 3, siblingIds: ['a1', 'b1', 'c1'] };
    const [, answer] = chatTurns({
      messages: [user('u1'), reasoning('r1', 'Hm'), assistant('a1', 'Yes', { branch })],
    });
    expect([answer!.key, answer!.messageId, answer!.branch]).toStrictEqual(['r1', 'a1', branch]);
  });

  it('a result whose call is on an older page is a part of its own; repeated ids get distinct keys', () => {
    const turns = chatTurns({
      messages: [tool('t0', 'c0', 'old'), user('x'), assistant('x', 'same id')],
    });
    expect(drawn(turns)).toStrictEqual([
      { role: 'assistant', key: 't0', streaming: false, parts: ['tool () done → old'] },
      { role: 'user', key: 'x', streaming: false, parts: ['text: x'] },
      { role: 'assistant', key: 'x\n2', streaming: false, parts: ['text: same id'] },
    ]);
  });

  it('ids are data: constructor, __proto__ and toString are ordinary ids', () => {
    const turns = chatTurns({
      messages: [
        user('__proto__'),
        assistant('constructor', '', { toolCalls: [call('toString', 'f', '{}')] }),
        tool('t', 'toString', '1'),
      ],
      interrupts: [
        interrupt({
          id: 'hasOwnProperty',
          toolCallId: 'toString',
          anchor: 'constructor',
          status: 'resolved',
          answer: {
            interruptId: 'hasOwnProperty',
            status: 'resolved',
            payload: { approved: true },
          },
        }),
      ],
    });
    expect(drawn(turns)).toStrictEqual([
      { role: 'user', key: '__proto__', streaming: false, parts: ['text: __proto__'] },
      {
        role: 'assistant',
        key: 'constructor',
        streaming: false,
        parts: ['tool f({}) done → 1 [hasOwnProperty]'],
      },
    ]);
  });

  it('a settled turn keeps its identity while the next streams; a changed one is new', () => {
    const [u1, a1, u2] = [user('u1'), assistant('a1', 'Done.'), user('u2')];
    const input = (text: string): ChatTurnsInput => ({
      messages: [u1, a1, u2, assistant('a2', text, { streaming: true })],
      isStreaming: true,
    });
    const first = chatTurns(input('He'));
    const next = chatTurns(input('Hello'), first);
    expect(next.map((t, i) => t === first[i])).toStrictEqual([true, true, true, false]);
    expect(drawn(next)[3]!.parts).toStrictEqual(['text…: Hello']);
    // An interrupt for a settled turn makes that turn new, and only it.
    const q = interrupt({ id: 'q', reason: 'question', anchor: 'a1' });
    const asked = chatTurns({ ...input('Hello'), interrupts: [q] }, next);
    expect(asked.map((t, i) => t === next[i])).toStrictEqual([true, false, true, false]);
  });
});
