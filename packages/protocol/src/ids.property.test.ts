import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AGUIEvent, Envelope } from './index.js';
import {
  applyEnvelopes,
  createRunState,
  foldLog,
  messageText,
  parseSnapshot,
  snapshotOf,
  stateFromSnapshot,
  toEnvelopes,
} from './index.js';

/** Every name an object inherits, plus the ones that reach the prototype itself. */
const PROTO_NAMES = [
  ...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype', 'then']),
];
const id = fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.string({ maxLength: 12 }));

/** Per id: a text message streamed in deltas, and a tool call whose arguments stream. */
function eventsFor(ids: readonly string[], deltas: readonly string[]): AGUIEvent[] {
  const events: object[] = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }];
  ids.forEach((mid, i) => {
    // Content for an unknown id first (a join), then a known one.
    events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: `m:${mid}`, delta: deltas[i] ?? 'x' });
    events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: `m:${mid}`, delta: '!' });
    events.push({ type: 'TOOL_CALL_ARGS', toolCallId: mid, delta: '{' });
    events.push({ type: 'TOOL_CALL_END', toolCallId: mid });
  });
  events.push({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' });
  return events as AGUIEvent[];
}

describe('ids are data', { timeout: 60_000 }, () => {
  it('every Object.prototype name works as a message id and a tool call id', () => {
    const ids = PROTO_NAMES;
    const state = foldLog(toEnvelopes(eventsFor(ids, ids)));
    for (const name of ids) {
      const m = state.messages.find((x) => x.id === `m:${name}`);
      expect(messageText(m!)).toBe(`${name}!`);
      expect(state.messageIndex.get(`m:${name}`)).toBe(state.messages.indexOf(m!));
      expect(state.toolCallOwner.get(name)).toBe(name);
    }
    // Bare prototype names as message ids too (a message named `constructor`).
    const bare = foldLog(
      toEnvelopes(
        ids.map(
          (name) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: name, delta: 'hi' }) as AGUIEvent,
        ),
      ),
    );
    expect(bare.messages.map((m) => [m.id, messageText(m)])).toEqual(ids.map((n) => [n, 'hi']));
  });

  it('arbitrary ids: the fold never throws, each message holds exactly its deltas', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(id, { minLength: 1, maxLength: 12 }),
        fc.array(fc.string({ maxLength: 5 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 7 }),
        (ids, deltas, batch) => {
          const log = toEnvelopes(eventsFor(ids, deltas));
          let state = createRunState();
          for (let i = 0; i < log.length; i += batch) {
            state = applyEnvelopes(state, log.slice(i, i + batch)).state;
          }
          expect(state.offset).toBe(log.length);
          ids.forEach((mid, i) => {
            const m = state.messages.find((x) => x.id === `m:${mid}`);
            expect(messageText(m!)).toBe(`${deltas[i] ?? 'x'}!`);
            const owner = state.messages.find((x) => x.id === mid && x.role === 'assistant');
            expect(owner?.toolCalls?.[0]?.function.arguments).toBe('{');
          });
          // Through the wire (JSON) and back as a snapshot: the same messages, same index.
          const wire = JSON.parse(JSON.stringify(snapshotOf(state)));
          const parsed = parseSnapshot(wire);
          if (parsed instanceof Error) throw parsed;
          const again = stateFromSnapshot(parsed);
          expect(again.messages).toEqual(state.messages);
          for (const m of state.messages) {
            expect(again.messageIndex.get(m.id)).toBe(state.messageIndex.get(m.id));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('garbage events with prototype-named fields never make the fold throw', () => {
    const field = fc.oneof(id, fc.integer(), fc.constant(null), fc.constant(undefined));
    const event = fc.record({
      type: fc.constantFrom(
        'TEXT_MESSAGE_START',
        'TEXT_MESSAGE_CONTENT',
        'TEXT_MESSAGE_END',
        'TEXT_MESSAGE_CHUNK',
        'TOOL_CALL_START',
        'TOOL_CALL_ARGS',
        'TOOL_CALL_END',
        'TOOL_CALL_CHUNK',
        'TOOL_CALL_RESULT',
        'REASONING_MESSAGE_CONTENT',
        'ACTIVITY_DELTA',
        'ACTIVITY_SNAPSHOT',
        'REASONING_ENCRYPTED_VALUE',
        'MESSAGES_SNAPSHOT',
        'constructor',
      ),
      messageId: field,
      toolCallId: field,
      parentMessageId: field,
      toolCallName: field,
      delta: fc.oneof(fc.string({ maxLength: 4 }), field),
      entityId: field,
      subtype: fc.constantFrom('tool-call', 'message'),
      encryptedValue: fc.string({ maxLength: 3 }),
      content: fc.oneof(fc.string({ maxLength: 3 }), fc.constant({})),
      activityType: fc.string({ maxLength: 3 }),
      patch: fc.constant([]),
      messages: fc.array(
        fc.record({ id: field, role: fc.constantFrom('assistant', 'user', 'constructor') }),
        { maxLength: 3 },
      ),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        const log = events.map((e, i) => ({ offset: i + 1, event: e }) as unknown as Envelope);
        const { state } = applyEnvelopes(createRunState(), log);
        expect(state.offset).toBe(log.length);
      }),
      { numRuns: 500 },
    );
  });
});
