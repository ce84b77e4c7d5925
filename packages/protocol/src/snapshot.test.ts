import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../test/logs.js';
import type { AGUIEvent, RunSnapshot } from './index.js';
import {
  applyEnvelopes,
  foldLog,
  parseSnapshot,
  snapshotOf,
  stateFromSnapshot,
  toEnvelopes,
} from './index.js';

const snapshot: RunSnapshot = {
  runId: 'r1',
  threadId: 't1',
  status: 'running',
  lastOffset: 40,
  messages: [
    { id: 'u1', role: 'user', content: 'weather?' },
    {
      id: 'a1',
      role: 'assistant',
      content: 'Checking',
      streaming: true,
      toolCalls: [{ id: 'tc1', type: 'function', function: { name: 'weather', arguments: '{"c' } }],
    },
  ],
  state: { city: 'Oslo' },
};

describe('stateFromSnapshot', () => {
  it('continues from lastOffset with the messages indexed', () => {
    const state = stateFromSnapshot(deepFreeze(structuredClone(snapshot)));
    expect(state).toMatchObject({
      offset: 40,
      runId: 'r1',
      threadId: 't1',
      status: 'running',
      outcome: null,
      error: null,
      state: { city: 'Oslo' },
      messageIndex: new Map([
        ['u1', 0],
        ['a1', 1],
      ]),
      toolCallOwner: new Map([['tc1', 'a1']]),
      warnings: [],
      synthesized: [],
    });
  });

  it('then the tail: known messages continue, unknown ones are synthesized, old offsets ignored', () => {
    const state = stateFromSnapshot(deepFreeze(structuredClone(snapshot)));
    const tail = toEnvelopes(
      [
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'STALE' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: '…' },
        { type: 'TOOL_CALL_ARGS', toolCallId: 'tc1', delta: 'ity":"Oslo"}' },
        { type: 'TOOL_CALL_END', toolCallId: 'tc1' },
        { type: 'TEXT_MESSAGE_END', messageId: 'a1' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a2', delta: 'Sunny' },
        { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' },
      ] as AGUIEvent[],
      40,
    );
    const result = applyEnvelopes(state, tail);
    expect(result).toMatchObject({ applied: 6, duplicates: 1, gap: null });
    expect(result.state.messages).toStrictEqual([
      { id: 'u1', role: 'user', content: 'weather?' },
      {
        id: 'a1',
        role: 'assistant',
        content: 'Checking…',
        toolCalls: [
          {
            id: 'tc1',
            type: 'function',
            function: { name: 'weather', arguments: '{"city":"Oslo"}' },
          },
        ],
      },
      { id: 'a2', role: 'assistant', content: 'Sunny' },
    ]);
    expect(result.state.synthesized).toStrictEqual([
      { type: 'TEXT_MESSAGE_START', id: 'a2', atOffset: 45 },
    ]);
    expect(result.state.status).toBe('finished');
  });

  it('a finished snapshot takes its outcome and error', () => {
    const done = stateFromSnapshot({
      ...snapshot,
      status: 'error',
      error: { message: 'x', code: 'agent_lost' },
    });
    expect(done).toMatchObject({ status: 'error', error: { message: 'x', code: 'agent_lost' } });
    const cancelled = stateFromSnapshot({
      ...snapshot,
      status: 'cancelled',
      outcome: { type: 'cancelled' },
    });
    expect(cancelled.outcome).toEqual({ type: 'cancelled' });
  });

  it('leaves out messages the fold could not extend, as warnings', () => {
    const state = stateFromSnapshot({
      ...snapshot,
      messages: [
        { id: 'ok', role: 'user', content: 'hi' },
        { role: 'user' },
        { id: 'bad', role: 'assistant', toolCalls: 'nope' },
      ] as never,
    });
    expect(state.messages.map((m) => m.id)).toEqual(['ok']);
    expect(state.warningCount).toBe(2);
    expect(state.warnings.map((w) => [w.offset, w.code])).toEqual([
      [null, 'malformed_event'],
      [null, 'malformed_event'],
    ]);
  });
});

describe('snapshotOf', () => {
  it('is the GET /runs/{id} body; optional fields only when set', () => {
    const state = foldLog(
      toEnvelopes([
        { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
        { type: 'TEXT_MESSAGE_START', messageId: 'm1' },
      ] as AGUIEvent[]),
    );
    expect(snapshotOf(state)).toStrictEqual({
      runId: 'r1',
      threadId: 't1',
      status: 'running',
      lastOffset: 2,
      messages: [{ id: 'm1', role: 'assistant', content: '', streaming: true }],
    });
  });

  it('carries open chunk blocks so an id-less chunk after it continues the right message', () => {
    const log = toEnvelopes([
      { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
      { type: 'TEXT_MESSAGE_CHUNK', messageId: 'c1', delta: 'a' },
      { type: 'TEXT_MESSAGE_CHUNK', delta: 'b' },
      { type: 'STEP_STARTED', stepName: 's' },
    ] as AGUIEvent[]);
    const body = snapshotOf(foldLog(log.slice(0, 2)));
    expect(body.openChunks).toEqual({ text: 'c1' });
    const resumed = applyEnvelopes(
      stateFromSnapshot(JSON.parse(JSON.stringify(body))),
      log.slice(2),
    );
    expect(resumed.state.messages).toStrictEqual(foldLog(log).messages);
    expect(resumed.state.messages).toStrictEqual([{ id: 'c1', role: 'assistant', content: 'ab' }]);
  });
});

describe('parseSnapshot', () => {
  it('accepts what snapshotOf makes, through JSON', () => {
    const wire = JSON.parse(JSON.stringify(snapshot));
    expect(parseSnapshot(wire, 'r1')).toEqual(snapshot);
  });

  it('anything else is bad_snapshot, returned and never thrown', () => {
    const cases: [unknown, string][] = [
      [null, 'not an object'],
      ['{}', 'not an object'],
      [[snapshot], 'not an object'],
      [{ ...snapshot, lastOffset: '8' }, 'lastOffset "8"'],
      [{ ...snapshot, lastOffset: -1 }, 'lastOffset -1'],
      [{ ...snapshot, lastOffset: 1.5 }, 'lastOffset 1.5'],
      [{ ...snapshot, lastOffset: 2 ** 53 }, 'lastOffset 9007199254740992'],
      [{ ...snapshot, runId: 'other' }, 'runId "other" is another run'],
      [{ ...snapshot, threadId: 7 }, 'no threadId'],
      [{ ...snapshot, status: 'idle' }, 'status "idle"'],
      [{ ...snapshot, messages: {} }, 'messages is not an array'],
      [{ ...snapshot, error: 'boom' }, 'error is not { message }'],
    ];
    for (const [value, why] of cases) {
      const result = parseSnapshot(value, 'r1');
      expect(result).toMatchObject({ code: 'bad_snapshot', message: `not a run snapshot: ${why}` });
    }
  });
});
