import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../test/logs.js';
import type { AGUIEvent, Envelope, RunState } from './index.js';
import {
  applyEnvelopes,
  applyEnvelopesWith,
  applyJsonPatch,
  createRunState,
  foldLog,
  MAX_SYNTHESIZED,
  MAX_WARNINGS,
  messageText,
  needsJsonPatch,
  toEnvelopes,
} from './index.js';

const START = { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' } as const;

/** Folds events given as loose objects (offsets 1..N), from `initial` when given. */
function fold(events: readonly object[], initial?: RunState): RunState {
  const from = initial?.offset ?? 0;
  return foldLog(toEnvelopes(events as AGUIEvent[], from + 1), initial);
}

/** Applies more events after `state`, continuing its offsets. */
function more(state: RunState, events: readonly object[]) {
  return applyEnvelopes(state, toEnvelopes(events as AGUIEvent[], state.offset + 1));
}

describe('run lifecycle', () => {
  it('starts idle, then RUN_STARTED makes it running with its ids', () => {
    const initial = createRunState();
    // Id tables are Maps: an id like `constructor` is data, never an inherited property.
    expect(initial).toStrictEqual({
      offset: 0,
      runId: null,
      threadId: null,
      status: 'idle',
      outcome: null,
      error: null,
      messages: [],
      messageIndex: new Map(),
      toolCallOwner: new Map(),
      state: undefined,
      steps: [],
      events: [],
      warnings: [],
      warningCount: 0,
      synthesized: [],
      synthesizedCount: 0,
      openChunks: {},
    });
    const state = fold([START]);
    expect(state).toMatchObject({ offset: 1, runId: 'r1', threadId: 't1', status: 'running' });
    expect(state.synthesized).toEqual([]);
  });

  it('RUN_FINISHED success closes open messages without marking them cut', () => {
    const state = fold([
      START,
      { type: 'TEXT_MESSAGE_START', messageId: 'm1' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Hi' },
      { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1', outcome: { type: 'success' } },
    ]);
    expect(state.status).toBe('finished');
    expect(state.outcome).toEqual({ type: 'success' });
    expect(state.error).toBeNull();
    expect(state.messages).toStrictEqual([{ id: 'm1', role: 'assistant', content: 'Hi' }]);
  });

  it('RUN_FINISHED without an outcome is a success', () => {
    const state = fold([START, { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' }]);
    expect(state.status).toBe('finished');
    expect(state.outcome).toEqual({ type: 'success' });
  });

  it('cancelled: open messages and tool calls are stopped, finished ones untouched', () => {
    const before = fold([
      START,
      { type: 'TEXT_MESSAGE_START', messageId: 'done' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'done', delta: 'ok' },
      { type: 'TEXT_MESSAGE_END', messageId: 'done' },
      { type: 'TEXT_MESSAGE_START', messageId: 'open' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'open', delta: 'hal' },
      { type: 'TOOL_CALL_START', toolCallId: 'tc1', toolCallName: 'search' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'tc1', delta: '{"q"' },
    ]);
    const { state } = more(before, [
      { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1', outcome: { type: 'cancelled' } },
    ]);
    expect(state.status).toBe('cancelled');
    expect(state.outcome).toEqual({ type: 'cancelled' });
    expect(state.messages).toStrictEqual([
      { id: 'done', role: 'assistant', content: 'ok' },
      { id: 'open', role: 'assistant', content: 'hal', ended: 'stopped' },
      {
        id: 'tc1',
        role: 'assistant',
        ended: 'stopped',
        toolCalls: [
          { id: 'tc1', type: 'function', function: { name: 'search', arguments: '{"q"' } },
        ],
      },
    ]);
    expect(state.messages[0]).toBe(before.messages[0]);
  });

  it('interrupt: finished with the interrupts, open messages closed but not cut', () => {
    const outcome = { type: 'interrupt', interrupts: [{ id: 'i1', reason: 'approval' }] };
    const state = fold([
      START,
      { type: 'TEXT_MESSAGE_START', messageId: 'm1' },
      { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1', outcome },
    ]);
    expect(state.status).toBe('finished');
    expect(state.outcome).toEqual(outcome);
    expect(state.messages).toStrictEqual([{ id: 'm1', role: 'assistant', content: '' }]);
  });

  it('RUN_ERROR: status error, the error kept, open messages marked error', () => {
    const state = fold([
      START,
      { type: 'REASONING_MESSAGE_START', messageId: 'rs1', role: 'reasoning' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'rs1', delta: 'hmm' },
      { type: 'RUN_ERROR', message: 'agent died', code: 'agent_lost' },
    ]);
    expect(state.status).toBe('error');
    expect(state.error).toEqual({ message: 'agent died', code: 'agent_lost' });
    expect(state.outcome).toBeNull();
    expect(state.messages).toStrictEqual([
      { id: 'rs1', role: 'reasoning', content: 'hmm', ended: 'error' },
    ]);
    expect(fold([START, { type: 'RUN_ERROR', message: 'x' }]).error).toEqual({ message: 'x' });
  });

  it('events after a terminal event are warnings; the resume point still moves', () => {
    const ended = fold([START, { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' }]);
    const result = more(ended, [
      { type: 'TEXT_MESSAGE_START', messageId: 'late' },
      { type: 'RUN_STARTED', threadId: 't1', runId: 'r2' },
    ]);
    expect(result.applied).toBe(2);
    expect(result.state.offset).toBe(4);
    expect(result.state.messages).toEqual([]);
    expect(result.state.runId).toBe('r1');
    expect(result.state.status).toBe('finished');
    expect(result.state.warnings).toStrictEqual([
      { offset: 3, code: 'event_after_terminal', message: expect.any(String) },
      { offset: 4, code: 'event_after_terminal', message: expect.any(String) },
    ]);
  });
});

describe('text messages', () => {
  it('streams every role, with names, in the order first seen', () => {
    const state = fold([
      START,
      { type: 'TEXT_MESSAGE_START', messageId: 'sys', role: 'system' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'sys', delta: 'Be brief.' },
      { type: 'TEXT_MESSAGE_END', messageId: 'sys' },
      { type: 'TEXT_MESSAGE_START', messageId: 'dev', role: 'developer' },
      { type: 'TEXT_MESSAGE_START', messageId: 'u1', role: 'user', name: 'ann' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'dev', delta: 'rules' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'u1', delta: 'Hi' },
      { type: 'TEXT_MESSAGE_END', messageId: 'u1' },
      { type: 'TEXT_MESSAGE_END', messageId: 'dev' },
      { type: 'TEXT_MESSAGE_START', messageId: 'a1' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'Hel' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'lo 😀' },
    ]);
    expect(state.messages).toStrictEqual([
      { id: 'sys', role: 'system', content: 'Be brief.' },
      { id: 'dev', role: 'developer', content: 'rules' },
      { id: 'u1', role: 'user', name: 'ann', content: 'Hi' },
      { id: 'a1', role: 'assistant', content: 'Hello 😀', streaming: true },
    ]);
    expect(Object.fromEntries(state.messageIndex)).toStrictEqual({ sys: 0, dev: 1, u1: 2, a1: 3 });
    expect(state.offset).toBe(13);
    expect(state.warnings).toEqual([]);
    expect(state.synthesized).toEqual([]);
  });

  it('a delta into structured content is a warning, not a corruption', () => {
    const state = fold([
      START,
      {
        type: 'MESSAGES_SNAPSHOT',
        messages: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'u1', delta: '!' },
    ]);
    expect(state.messages[0]).toEqual({
      id: 'u1',
      role: 'user',
      content: [{ type: 'text', text: 'hi' }],
    });
    expect(state.warnings.map((w) => w.code)).toEqual(['malformed_event']);
    expect(messageText(state.messages[0]!)).toBe('hi');
  });
});

describe('tool calls', () => {
  it('START without a parent opens an assistant message keyed by the tool call id', () => {
    const state = fold([
      START,
      { type: 'TOOL_CALL_START', toolCallId: 'tc1', toolCallName: 'search' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'tc1', delta: '{"q":' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'tc1', delta: '"rain"}' },
    ]);
    expect(state.messages).toStrictEqual([
      {
        id: 'tc1',
        role: 'assistant',
        toolCalls: [
          {
            id: 'tc1',
            type: 'function',
            function: { name: 'search', arguments: '{"q":"rain"}' },
            streaming: true,
          },
        ],
      },
    ]);
    expect(Object.fromEntries(state.toolCallOwner)).toStrictEqual({ tc1: 'tc1' });
  });

  it('START with a parent joins that assistant message; END and RESULT follow', () => {
    const state = fold([
      START,
      { type: 'TEXT_MESSAGE_START', messageId: 'a1' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'Let me look.' },
      { type: 'TOOL_CALL_START', toolCallId: 'tc1', toolCallName: 'search', parentMessageId: 'a1' },
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'tc2',
        toolCallName: 'weather',
        parentMessageId: 'a1',
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'tc2', delta: '{}' },
      { type: 'TOOL_CALL_END', toolCallId: 'tc2' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'tc1', delta: '{"q":1}' },
      { type: 'TOOL_CALL_END', toolCallId: 'tc1' },
      { type: 'TEXT_MESSAGE_END', messageId: 'a1' },
      { type: 'TOOL_CALL_RESULT', messageId: 'res1', toolCallId: 'tc1', content: '42' },
      {
        type: 'TOOL_CALL_RESULT',
        messageId: 'res2',
        toolCallId: 'tc2',
        content: [{ type: 'text', text: 'sunny' }],
        role: 'tool',
      },
    ]);
    expect(state.messages).toStrictEqual([
      {
        id: 'a1',
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [
          { id: 'tc1', type: 'function', function: { name: 'search', arguments: '{"q":1}' } },
          { id: 'tc2', type: 'function', function: { name: 'weather', arguments: '{}' } },
        ],
      },
      { id: 'res1', role: 'tool', toolCallId: 'tc1', content: '42' },
      { id: 'res2', role: 'tool', toolCallId: 'tc2', content: [{ type: 'text', text: 'sunny' }] },
    ]);
    expect(Object.fromEntries(state.toolCallOwner)).toStrictEqual({ tc1: 'a1', tc2: 'a1' });
  });

  it('a parent not seen yet is created as an assistant message; its text START reuses it', () => {
    const state = fold([
      START,
      { type: 'TOOL_CALL_START', toolCallId: 'tc1', toolCallName: 'f', parentMessageId: 'a1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'a1' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'hi' },
    ]);
    expect(state.messages).toStrictEqual([
      {
        id: 'a1',
        role: 'assistant',
        content: 'hi',
        streaming: true,
        toolCalls: [
          { id: 'tc1', type: 'function', function: { name: 'f', arguments: '' }, streaming: true },
        ],
      },
    ]);
  });

  it('a parent that is not an assistant message gets a new assistant message', () => {
    const state = fold([
      START,
      { type: 'TEXT_MESSAGE_START', messageId: 'u1', role: 'user' },
      { type: 'TOOL_CALL_START', toolCallId: 'tc1', toolCallName: 'f', parentMessageId: 'u1' },
    ]);
    expect(state.messages.map((m) => [m.id, m.role])).toEqual([
      ['u1', 'user'],
      ['tc1', 'assistant'],
    ]);
    expect(Object.fromEntries(state.toolCallOwner)).toStrictEqual({ tc1: 'tc1' });
  });

  it('a RESULT replacing the message that owned a call does not break later ARGS', () => {
    const state = fold([
      START,
      { type: 'TOOL_CALL_START', toolCallId: 'tc1', toolCallName: 'f', parentMessageId: 'a1' },
      { type: 'TOOL_CALL_RESULT', messageId: 'a1', toolCallId: 'tc1', content: 'x' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'tc1', delta: '{}' },
    ]);
    expect(state.messages[0]).toEqual({ id: 'a1', role: 'tool', toolCallId: 'tc1', content: 'x' });
    expect(state.toolCallOwner.get('tc1')).toBe('tc1');
    expect(state.synthesized.map((s) => [s.type, s.id])).toEqual([['TOOL_CALL_START', 'tc1']]);
  });
});

describe('reasoning', () => {
  it('reasoning messages stream like text; phase markers carry nothing', () => {
    const state = fold([
      START,
      { type: 'REASONING_START', messageId: 'rs1' },
      { type: 'REASONING_MESSAGE_START', messageId: 'rs1', role: 'reasoning' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'rs1', delta: 'First, ' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'rs1', delta: 'think.' },
      { type: 'REASONING_MESSAGE_END', messageId: 'rs1' },
      { type: 'REASONING_END', messageId: 'rs1' },
    ]);
    expect(state.messages).toStrictEqual([
      { id: 'rs1', role: 'reasoning', content: 'First, think.' },
    ]);
  });

  it('REASONING_ENCRYPTED_VALUE lands on its message or tool call; unknown targets are ignored', () => {
    const state = fold([
      START,
      { type: 'REASONING_MESSAGE_START', messageId: 'rs1', role: 'reasoning' },
      { type: 'TOOL_CALL_START', toolCallId: 'tc1', toolCallName: 'f' },
      {
        type: 'REASONING_ENCRYPTED_VALUE',
        subtype: 'message',
        entityId: 'rs1',
        encryptedValue: 'E1',
      },
      {
        type: 'REASONING_ENCRYPTED_VALUE',
        subtype: 'tool-call',
        entityId: 'tc1',
        encryptedValue: 'E2',
      },
      {
        type: 'REASONING_ENCRYPTED_VALUE',
        subtype: 'message',
        entityId: 'nope',
        encryptedValue: 'E3',
      },
    ]);
    expect(state.messages[0]).toMatchObject({ id: 'rs1', encryptedValue: 'E1' });
    expect(state.messages[1]!.toolCalls![0]).toMatchObject({ id: 'tc1', encryptedValue: 'E2' });
    expect(state.messages).toHaveLength(2);
    expect(state.warnings).toEqual([]);
  });
});

describe('*_CHUNK expansion', () => {
  it('TEXT_MESSAGE_CHUNK opens, continues without an id, and closes at another event', () => {
    const open = fold([
      START,
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'c1', role: 'assistant', delta: 'Hel' },
      { type: 'TEXT_MESSAGE_CHUNK', delta: 'lo' },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'c1', delta: '!' },
    ]);
    expect(open.messages).toStrictEqual([
      { id: 'c1', role: 'assistant', content: 'Hello!', streaming: true },
    ]);
    expect(open.openChunks).toStrictEqual({ text: 'c1' });
    const closed = more(open, [{ type: 'STEP_STARTED', stepName: 's' }]).state;
    expect(closed.messages).toStrictEqual([{ id: 'c1', role: 'assistant', content: 'Hello!' }]);
    expect(closed.openChunks).toStrictEqual({});
  });

  it('a chunk with another id closes the open one and opens the next', () => {
    const state = fold([
      START,
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'c1', delta: 'a' },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'c2', role: 'user', name: 'ann', delta: 'b' },
      { type: 'TEXT_MESSAGE_CHUNK', delta: 'c' },
    ]);
    expect(state.messages).toStrictEqual([
      { id: 'c1', role: 'assistant', content: 'a' },
      { id: 'c2', role: 'user', name: 'ann', content: 'bc', streaming: true },
    ]);
  });

  it('a chunk without an id and nothing open is a warning', () => {
    const state = fold([START, { type: 'TEXT_MESSAGE_CHUNK', delta: 'lost' }]);
    expect(state.messages).toEqual([]);
    expect(state.warnings).toStrictEqual([
      { offset: 2, code: 'malformed_event', message: expect.stringContaining('chunk') },
    ]);
    expect(state.offset).toBe(2);
  });

  it('TOOL_CALL_CHUNK expands to START/ARGS/END', () => {
    const state = fold([
      START,
      { type: 'TEXT_MESSAGE_START', messageId: 'a1' },
      {
        type: 'TOOL_CALL_CHUNK',
        toolCallId: 'tc1',
        toolCallName: 'search',
        parentMessageId: 'a1',
        delta: '{"q"',
      },
      { type: 'TOOL_CALL_CHUNK', delta: ':1}' },
      { type: 'TOOL_CALL_CHUNK' },
    ]);
    expect(state.messages[0]!.toolCalls).toStrictEqual([
      {
        id: 'tc1',
        type: 'function',
        function: { name: 'search', arguments: '{"q":1}' },
        streaming: true,
      },
    ]);
    const closed = more(state, [{ type: 'TEXT_MESSAGE_END', messageId: 'a1' }]).state;
    expect(closed.messages).toStrictEqual([
      {
        id: 'a1',
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'tc1', type: 'function', function: { name: 'search', arguments: '{"q":1}' } },
        ],
      },
    ]);
  });

  it('REASONING_MESSAGE_CHUNK expands to a reasoning message', () => {
    const state = fold([
      START,
      { type: 'REASONING_MESSAGE_CHUNK', messageId: 'rc1', delta: 'why' },
      { type: 'REASONING_MESSAGE_CHUNK', delta: '?' },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'c1', delta: 'because' },
    ]);
    expect(state.messages).toStrictEqual([
      { id: 'rc1', role: 'reasoning', content: 'why?' },
      { id: 'c1', role: 'assistant', content: 'because', streaming: true },
    ]);
    expect(state.openChunks).toStrictEqual({ text: 'c1' });
  });

  it('a terminal event during a chunk block cuts it like any open message', () => {
    const state = fold([
      START,
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'c1', delta: 'par' },
      { type: 'TOOL_CALL_CHUNK', toolCallId: 'tc1', toolCallName: 'f', delta: '{' },
      { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1', outcome: { type: 'cancelled' } },
    ]);
    expect(state.messages).toStrictEqual([
      { id: 'c1', role: 'assistant', content: 'par' },
      {
        id: 'tc1',
        role: 'assistant',
        ended: 'stopped',
        toolCalls: [{ id: 'tc1', type: 'function', function: { name: 'f', arguments: '{' } }],
      },
    ]);
    expect(state.openChunks).toStrictEqual({});
    const errored = fold([
      START,
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'c1', delta: 'par' },
      { type: 'RUN_ERROR', message: 'x' },
    ]);
    expect(errored.messages).toStrictEqual([
      { id: 'c1', role: 'assistant', content: 'par', ended: 'error' },
    ]);
  });
});

describe('MESSAGES_SNAPSHOT', () => {
  it('merges by id: replaces in place, appends new ones, keeps the others', () => {
    const before = fold([
      START,
      { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'user' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'q' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'm2' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: 'draft' },
    ]);
    const snapshot = deepFreeze({
      type: 'MESSAGES_SNAPSHOT',
      messages: [
        { id: 'm2', role: 'assistant', content: 'final answer' },
        { id: 'h1', role: 'user', content: 'older' },
        {
          id: 'h2',
          role: 'assistant',
          toolCalls: [{ id: 'tcx', type: 'function', function: { name: 'f', arguments: '{' } }],
        },
      ],
    });
    const { state } = more(before, [snapshot]);
    expect(state.messages).toStrictEqual([
      { id: 'm1', role: 'user', content: 'q' },
      { id: 'm2', role: 'assistant', content: 'final answer' },
      { id: 'h1', role: 'user', content: 'older' },
      {
        id: 'h2',
        role: 'assistant',
        toolCalls: [{ id: 'tcx', type: 'function', function: { name: 'f', arguments: '{' } }],
      },
    ]);
    expect(state.messages[0]).toBe(before.messages[0]);
    expect(state.messages[1]).not.toBe(snapshot.messages[0]);
    expect(Object.fromEntries(state.toolCallOwner)).toStrictEqual({ tcx: 'h2' });
    // A snapshot's (frozen) tool call can be extended later: the fold copies, never writes.
    const next = more(state, [{ type: 'TOOL_CALL_ARGS', toolCallId: 'tcx', delta: '}' }]).state;
    expect(next.messages[3]!.toolCalls![0]!.function.arguments).toBe('{}');
  });

  it('malformed messages are warnings; the rest of the snapshot applies', () => {
    const state = fold([
      START,
      {
        type: 'MESSAGES_SNAPSHOT',
        messages: [
          null,
          { role: 'user', content: 'no id' },
          { id: 'a', role: 'assistant', toolCalls: {} },
          { id: 'b', role: 'assistant', toolCalls: [{ id: 'c' }] },
          { id: 'ok', role: 'user', content: 'fine' },
        ],
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: 'x' },
    ]);
    expect(state.messages.map((m) => m.id)).toEqual(['ok', 'c']);
    expect(state.warnings.map((w) => [w.offset, w.code])).toEqual([
      [2, 'malformed_event'],
      [2, 'malformed_event'],
      [2, 'malformed_event'],
      [2, 'malformed_event'],
    ]);
  });
});

describe('state', () => {
  it('STATE_SNAPSHOT replaces, STATE_DELTA patches without touching the event or prior state', () => {
    const snapshot = deepFreeze({ type: 'STATE_SNAPSHOT', snapshot: { todo: ['a'], n: 1 } });
    const s1 = fold([START, snapshot]);
    expect(s1.state).toEqual({ todo: ['a'], n: 1 });
    const s2 = more(deepFreeze(s1), [
      {
        type: 'STATE_DELTA',
        delta: [
          { op: 'add', path: '/todo/-', value: 'b' },
          { op: 'replace', path: '/n', value: 2 },
        ],
      },
    ]).state;
    expect(s2.state).toEqual({ todo: ['a', 'b'], n: 2 });
    expect(s1.state).toEqual({ todo: ['a'], n: 1 });
  });

  it('STATE_DELTA before any snapshot patches an empty object', () => {
    const state = fold([
      START,
      { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/a', value: 1 }] },
    ]);
    expect(state.state).toEqual({ a: 1 });
  });

  it('a patch that fails is a bad_patch warning and applies nothing (not even its prefix)', () => {
    const state = fold([
      START,
      { type: 'STATE_SNAPSHOT', snapshot: { a: 1 } },
      {
        type: 'STATE_DELTA',
        delta: [
          { op: 'replace', path: '/a', value: 2 },
          { op: 'remove', path: '/missing' },
        ],
      },
      { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/b', value: 3 }] },
    ]);
    expect(state.state).toEqual({ a: 1, b: 3 });
    expect(state.offset).toBe(4);
    expect(state.warnings).toStrictEqual([
      { offset: 3, code: 'bad_patch', message: expect.stringContaining('JSON Patch failed') },
    ]);
  });

  it('JSON Patch support can be passed in (loaded lazily): needsJsonPatch says when', () => {
    const events = toEnvelopes([
      START,
      { type: 'STATE_SNAPSHOT', snapshot: { a: 1 } },
      { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/a', value: 2 }] },
    ] as AGUIEvent[]);
    expect(needsJsonPatch(events.slice(0, 2))).toBe(false);
    expect(needsJsonPatch(events)).toBe(true);
    expect(needsJsonPatch([{ offset: 1, event: null } as unknown as Envelope])).toBe(false);
    const given = applyEnvelopesWith(createRunState(), events, applyJsonPatch).state;
    expect(given).toStrictEqual(applyEnvelopes(createRunState(), events).state);
    expect(given.state).toStrictEqual({ a: 2 });
    // Folded without it (a caller that skipped needsJsonPatch): a warning, never a throw.
    const without = applyEnvelopesWith(createRunState(), events, null).state;
    expect(without.state).toStrictEqual({ a: 1 });
    expect(without.offset).toBe(3);
    expect(without.warnings).toStrictEqual([
      { offset: 3, code: 'bad_patch', message: 'the fold was given no JSON Patch support' },
    ]);
  });
});

describe('activities', () => {
  it('ACTIVITY_SNAPSHOT adds an activity message, ACTIVITY_DELTA patches it', () => {
    const state = fold([
      START,
      {
        type: 'ACTIVITY_SNAPSHOT',
        messageId: 'act1',
        activityType: 'PLAN',
        content: { steps: [] },
      },
      {
        type: 'ACTIVITY_DELTA',
        messageId: 'act1',
        activityType: 'PLAN',
        patch: [{ op: 'add', path: '/steps/-', value: 'x' }],
      },
    ]);
    expect(state.messages).toStrictEqual([
      { id: 'act1', role: 'activity', activityType: 'PLAN', content: { steps: ['x'] } },
    ]);
  });

  it('replace: false keeps an existing activity; the default replaces it', () => {
    const base = [
      START,
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'a', activityType: 'PLAN', content: { v: 1 } },
    ];
    const kept = fold([
      ...base,
      {
        type: 'ACTIVITY_SNAPSHOT',
        messageId: 'a',
        activityType: 'PLAN',
        content: { v: 2 },
        replace: false,
      },
    ]);
    expect(kept.messages[0]).toMatchObject({ content: { v: 1 } });
    const replaced = fold([
      ...base,
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'a', activityType: 'PLAN', content: { v: 2 } },
    ]);
    expect(replaced.messages[0]).toMatchObject({ content: { v: 2 } });
  });

  it('ACTIVITY_DELTA for an unknown activity or a non-activity message is a warning', () => {
    const state = fold([
      START,
      { type: 'TEXT_MESSAGE_START', messageId: 'm1' },
      { type: 'ACTIVITY_DELTA', messageId: 'nope', activityType: 'PLAN', patch: [] },
      { type: 'ACTIVITY_DELTA', messageId: 'm1', activityType: 'PLAN', patch: [] },
      { type: 'ACTIVITY_SNAPSHOT', messageId: 'a', activityType: 'PLAN', content: {} },
      {
        type: 'ACTIVITY_DELTA',
        messageId: 'a',
        activityType: 'PLAN',
        patch: [{ op: 'remove', path: '/x' }],
      },
    ]);
    expect(state.warnings.map((w) => [w.offset, w.code])).toEqual([
      [3, 'malformed_event'],
      [4, 'malformed_event'],
      [6, 'bad_patch'],
    ]);
    expect(state.messages[0]).toEqual({
      id: 'm1',
      role: 'assistant',
      content: '',
      streaming: true,
    });
  });
});

describe('steps and app events', () => {
  it('steps run and finish; a finish without a start is recorded', () => {
    const state = fold([
      START,
      { type: 'STEP_STARTED', stepName: 'plan' },
      { type: 'STEP_STARTED', stepName: 'act' },
      { type: 'STEP_FINISHED', stepName: 'plan' },
      { type: 'STEP_FINISHED', stepName: 'ghost' },
    ]);
    expect(state.steps).toStrictEqual([
      { name: 'plan', status: 'finished' },
      { name: 'act', status: 'running' },
      { name: 'ghost', status: 'finished' },
    ]);
  });

  it('CUSTOM, RAW and SUBAGENT_* are kept verbatim, in order', () => {
    const events = [
      { type: 'CUSTOM', name: 'progress', value: { pct: 50 } },
      { type: 'RAW', event: { vendor: 'x' }, source: 'openai' },
      { type: 'SUBAGENT_STARTED', subagentRunId: 'sa1', name: 'helper' },
      { type: 'SUBAGENT_FINISHED', subagentRunId: 'sa1' },
      { type: 'SUBAGENT_ERROR', subagentRunId: 'sa2', message: 'nope' },
    ];
    const state = fold([START, ...events]);
    expect(state.events).toStrictEqual(events);
    expect(state.events[0]).toBe(events[0]);
  });
});

describe('dedupe and gaps', () => {
  const log = toEnvelopes([
    START,
    { type: 'TEXT_MESSAGE_START', messageId: 'm1' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'a' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'b' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'c' },
  ] as AGUIEvent[]);

  it('an envelope at or below the resume point is a counted duplicate', () => {
    const first = applyEnvelopes(createRunState(), [log[0]!, log[1]!, log[0]!, log[1]!, log[2]!]);
    expect(first).toMatchObject({ applied: 3, duplicates: 2, gap: null });
    expect(first.state.offset).toBe(3);
    const again = applyEnvelopes(first.state, log.slice(0, 3));
    expect(again).toMatchObject({ applied: 0, duplicates: 3, gap: null });
    expect(again.state).toBe(first.state);
    const resumed = applyEnvelopes(first.state, log.slice(1));
    expect(resumed).toMatchObject({ applied: 2, duplicates: 2, gap: null });
    expect(messageText(resumed.state.messages[0]!)).toBe('abc');
  });

  it('an envelope beyond resume point + 1 is a gap: it and the rest are not applied', () => {
    const s2 = applyEnvelopes(createRunState(), log.slice(0, 2)).state;
    const skipped = applyEnvelopes(s2, [log[3]!, log[4]!]);
    expect(skipped).toMatchObject({ applied: 0, duplicates: 0, gap: { expected: 3, received: 4 } });
    expect(skipped.state).toBe(s2);
    const holed = applyEnvelopes(s2, [log[2]!, log[4]!, log[3]!]);
    expect(holed).toMatchObject({ applied: 1, gap: { expected: 4, received: 5 } });
    expect(holed.state.offset).toBe(3);
    expect(messageText(holed.state.messages[0]!)).toBe('a');
  });

  it('foldLog throws offset_gap on a log with a hole', () => {
    expect(() => foldLog([log[0]!, log[2]!])).toThrow(
      expect.objectContaining({ code: 'offset_gap' }),
    );
  });
});

describe('malformed and unknown events', () => {
  it('become warnings with codes; the batch goes on and the offset moves past them', () => {
    const result = applyEnvelopes(createRunState(), [
      { offset: 1, event: START },
      { offset: 2, event: { type: 'NOT_A_THING' } },
      { offset: 3, event: { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1' } },
      { offset: 4, event: null },
      { offset: 5, event: { type: undefined, unparsed: '{oops' } },
      { offset: 6, event: { type: 'TEXT_MESSAGE_START', messageId: 'm1' } },
    ] as unknown as Envelope[]);
    expect(result).toMatchObject({ applied: 6, duplicates: 0, gap: null });
    expect(result.state.offset).toBe(6);
    expect(result.state.warnings.map((w) => [w.offset, w.code])).toEqual([
      [2, 'unknown_event'],
      [3, 'malformed_event'],
      [4, 'malformed_event'],
      [5, 'malformed_event'],
    ]);
    expect(result.state.warningCount).toBe(4);
    expect(result.state.messages.map((m) => m.id)).toEqual(['m1']);
  });

  it('an envelope without a valid offset is a warning and moves nothing', () => {
    const result = applyEnvelopes(createRunState(), [
      { offset: 0, event: START },
      { offset: 1.5, event: START },
      { event: START },
      null,
      { offset: 1, event: START },
    ] as unknown as Envelope[]);
    expect(result.applied).toBe(1);
    expect(result.state.offset).toBe(1);
    expect(result.state.warnings.map((w) => [w.offset, w.code])).toEqual([
      [null, 'malformed_event'],
      [null, 'malformed_event'],
      [null, 'malformed_event'],
      [null, 'malformed_event'],
    ]);
  });

  it('keeps the latest MAX_WARNINGS warnings and counts them all', () => {
    const junk = Array.from({ length: MAX_WARNINGS + 10 }, () => ({ type: 'JUNK' }));
    const state = fold([START, ...junk]);
    expect(state.warningCount).toBe(MAX_WARNINGS + 10);
    expect(state.warnings).toHaveLength(MAX_WARNINGS);
    expect(state.warnings[0]!.offset).toBe(12);
    expect(state.warnings.at(-1)!.offset).toBe(MAX_WARNINGS + 11);
  });
});

describe('mid-stream joins synthesize the STARTs they missed', () => {
  it('run and text message', () => {
    const state = fold(
      [
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'lo' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: '!' },
        { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
        { type: 'TEXT_MESSAGE_END', messageId: 'm2' },
      ],
      createRunState({ from: 4 }),
    );
    expect(state.offset).toBe(8);
    expect(state.status).toBe('running');
    expect(state.messages).toStrictEqual([
      { id: 'm1', role: 'assistant', content: 'lo!' },
      { id: 'm2', role: 'assistant', content: '' },
    ]);
    expect(state.synthesized).toStrictEqual([
      { type: 'RUN_STARTED', id: '', atOffset: 5 },
      { type: 'TEXT_MESSAGE_START', id: 'm1', atOffset: 5 },
      { type: 'TEXT_MESSAGE_START', id: 'm2', atOffset: 8 },
    ]);
  });

  it('tool call ARGS and END, and reasoning', () => {
    const state = fold(
      [
        { type: 'TOOL_CALL_ARGS', toolCallId: 'tc1', delta: '"x"}' },
        { type: 'TOOL_CALL_END', toolCallId: 'tc1' },
        { type: 'TOOL_CALL_END', toolCallId: 'tc2' },
        { type: 'REASONING_MESSAGE_CONTENT', messageId: 'rs1', delta: 'so' },
        { type: 'REASONING_MESSAGE_END', messageId: 'rs2' },
      ],
      createRunState({ from: 10, runId: 'r1', threadId: 't1' }),
    );
    expect(state.messages).toStrictEqual([
      {
        id: 'tc1',
        role: 'assistant',
        toolCalls: [{ id: 'tc1', type: 'function', function: { name: '', arguments: '"x"}' } }],
      },
      {
        id: 'tc2',
        role: 'assistant',
        toolCalls: [{ id: 'tc2', type: 'function', function: { name: '', arguments: '' } }],
      },
      { id: 'rs1', role: 'reasoning', content: 'so', streaming: true },
      { id: 'rs2', role: 'reasoning', content: '' },
    ]);
    expect(state.synthesized.map((s) => [s.type, s.id, s.atOffset])).toEqual([
      ['RUN_STARTED', 'r1', 11],
      ['TOOL_CALL_START', 'tc1', 11],
      ['TOOL_CALL_START', 'tc2', 13],
      ['REASONING_MESSAGE_START', 'rs1', 14],
      ['REASONING_MESSAGE_START', 'rs2', 15],
    ]);
    expect(state.runId).toBe('r1');
  });

  it('a join on the terminal event takes the run id from it', () => {
    const state = fold(
      [{ type: 'RUN_FINISHED', threadId: 't9', runId: 'r9' }],
      createRunState({ from: 2 }),
    );
    expect(state).toMatchObject({ status: 'finished', runId: 'r9', threadId: 't9', offset: 3 });
    expect(state.synthesized).toStrictEqual([{ type: 'RUN_STARTED', id: 'r9', atOffset: 3 }]);
  });

  it('keeps the latest MAX_SYNTHESIZED, counts them all, and every message keeps its text', () => {
    // A join into a long run: one synthesized START per message, over two batches.
    const n = MAX_SYNTHESIZED + 30;
    const content = (i: number) => ({
      type: 'TEXT_MESSAGE_CONTENT',
      messageId: `m${i}`,
      delta: `t${i}`,
    });
    const first = fold(
      Array.from({ length: 40 }, (_, i) => content(i)),
      createRunState({ from: 4, runId: 'r1' }),
    );
    const state = fold(
      Array.from({ length: n - 40 }, (_, i) => content(40 + i)),
      deepFreeze(first),
    );
    expect(first.synthesized).toHaveLength(41);
    expect(first.synthesizedCount).toBe(41);
    expect(state.synthesizedCount).toBe(n + 1);
    expect(state.synthesized).toHaveLength(MAX_SYNTHESIZED);
    expect(state.synthesized[0]).toStrictEqual({
      type: 'TEXT_MESSAGE_START',
      id: `m${n - MAX_SYNTHESIZED}`,
      atOffset: 5 + n - MAX_SYNTHESIZED,
    });
    expect(state.synthesized.at(-1)).toStrictEqual({
      type: 'TEXT_MESSAGE_START',
      id: `m${n - 1}`,
      atOffset: 4 + n,
    });
    expect(state.messages.map((m) => messageText(m))).toStrictEqual(
      Array.from({ length: n }, (_, i) => `t${i}`),
    );
    expect(state.messageIndex.get(`m${n - 1}`)).toBe(n - 1);
  });
});

describe('structural sharing', () => {
  const thread = fold([
    START,
    ...['m1', 'm2', 'm3'].flatMap((id) => [
      { type: 'TEXT_MESSAGE_START', messageId: id },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta: id },
    ]),
    { type: 'STATE_SNAPSHOT', snapshot: { a: 1 } },
  ]);

  it('a delta gives a new identity to its message only; the input is never written', () => {
    const input = deepFreeze(thread);
    const events = deepFreeze(
      toEnvelopes(
        [
          { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: '+' },
          { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: '+' },
        ] as AGUIEvent[],
        input.offset + 1,
      ),
    );
    const { state } = applyEnvelopes(input, events);
    expect(state).not.toBe(input);
    expect(state.messages).not.toBe(input.messages);
    expect(state.messages[0]).toBe(input.messages[0]);
    expect(state.messages[1]).not.toBe(input.messages[1]);
    expect(state.messages[2]).toBe(input.messages[2]);
    expect(messageText(state.messages[1]!)).toBe('m2++');
    expect(state.messageIndex).toBe(input.messageIndex);
    expect(state.toolCallOwner).toBe(input.toolCallOwner);
    expect(state.state).toBe(input.state);
    expect(state.steps).toBe(input.steps);
    expect(state.warnings).toBe(input.warnings);
  });

  it('per delta applied one at a time, exactly one message changes identity', () => {
    let state = deepFreeze(thread);
    for (let i = 0; i < 20; i++) {
      const id = `m${1 + (i % 3)}`;
      const next = more(state, [{ type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta: 'x' }]).state;
      const changed = next.messages.filter((m, j) => m !== state.messages[j]);
      expect(changed.map((m) => m.id)).toEqual([id]);
      state = deepFreeze(next);
    }
  });

  it('a batch that adds a message copies one shard of the id index, not the index', () => {
    const n = 2000;
    const base = deepFreeze(
      fold([
        START,
        ...Array.from({ length: n }, (_, i) => ({
          type: 'TEXT_MESSAGE_CONTENT',
          messageId: `m${i}`,
          delta: 'x',
        })),
      ]),
    );
    const { state } = more(base, [{ type: 'TEXT_MESSAGE_START', messageId: 'new' }]);
    expect([state.messageIndex.get('new'), state.messageIndex.size]).toEqual([n, n + 1]);
    expect([base.messageIndex.has('new'), base.messageIndex.size]).toEqual([false, n]);
    const shards = (index: unknown) => (index as { shards: unknown[] }).shards;
    const copied = shards(state.messageIndex).filter(
      (shard, k) => shard !== shards(base.messageIndex)[k],
    );
    expect(copied).toHaveLength(1);
    expect(state.messages.slice(0, n).every((m, i) => m === base.messages[i])).toBe(true);
  });

  it('a batch that changes no message keeps the messages array', () => {
    const { state } = more(deepFreeze(thread), [
      { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/b', value: 2 }] },
      { type: 'STEP_STARTED', stepName: 's' },
    ]);
    expect(state.messages).toBe(thread.messages);
    expect(state.state).toEqual({ a: 1, b: 2 });
  });
});
