import type { Envelope } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { MAX_BATCH_CHARS, MAX_BATCH_EVENTS } from '../base/defaults.js';
import { chunkEnvelopes, parseTabShareMessage } from './tab-messages.js';

const KEY = 'chat-1';
const ME = 'tab-me';
const delta = (offset: number, text = 'x'): Envelope =>
  ({
    offset,
    event: { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: text },
  }) as Envelope;
const batch = (envelopes: unknown, extra: Record<string, unknown> = {}) => ({
  v: 1,
  t: 'batch',
  tab: 'tab-other',
  key: KEY,
  runId: 'run-1',
  envelopes,
  ...extra,
});

/** What this tab (`ME`, on chat `KEY`) makes of a message another tab posted. */
const parse = (message: unknown) => parseTabShareMessage(message, KEY, ME);
/** A well-formed message is taken as it is. */
const expectKept = (message: Record<string, unknown>) => expect(parse(message)).toEqual(message);

describe('parseTabShareMessage (every message from another tab is checked)', () => {
  it('takes a well-formed batch as it is', () => {
    expectKept(batch([delta(3), delta(4)]));
  });

  it.each([
    ['null', null],
    ['a string', 'batch'],
    ['another version', batch([delta(1)], { v: 2 })],
    ['another key', batch([delta(1)], { key: 'chat-2' })],
    ['this tab itself', batch([delta(1)], { tab: ME })],
    ['an unknown type', batch([delta(1)], { t: 'evil' })],
    ['no run id', batch([delta(1)], { runId: '' })],
    ['a run id that is too long', batch([delta(1)], { runId: 'r'.repeat(257) })],
    ['no envelopes', batch([])],
    ['envelopes that are not an array', batch({ 0: delta(1) })],
    ['offset 0', batch([delta(0)])],
    ['a fractional offset', batch([{ ...delta(1), offset: 1.5 }])],
    ['a string offset', batch([{ ...delta(1), offset: '1' }])],
    ['offsets going back', batch([delta(2), delta(1)])],
    ['a repeated offset', batch([delta(2), delta(2)])],
    ['an event without a type', batch([{ offset: 1, event: { delta: 'x' } }])],
    ['an event that is not an object', batch([{ offset: 1, event: 'x' }])],
    [
      'too many events',
      batch(Array.from({ length: MAX_BATCH_EVENTS + 1 }, (_, i) => delta(i + 1))),
    ],
    ['too many characters', batch([delta(1, 'y'.repeat(MAX_BATCH_CHARS))])],
  ])('drops %s', (_what, message) => {
    expect(parse(message)).toBeNull();
  });

  it('checks lead, sync, thread and snapshot messages', () => {
    const base = { v: 1, tab: 'tab-other', key: KEY };
    const run = {
      runId: 'r',
      threadId: 't',
      token: null,
      prompt: { id: 'u', role: 'user', content: 'hi' },
    };
    expectKept({ ...base, t: 'lead', run, offset: 3 });
    expectKept({ ...base, t: 'lead', run: null, offset: 0 });
    expect(parse({ ...base, t: 'lead', run: null, offset: -1 })).toBeNull();
    // A prompt that is not a user message is dropped, the run kept.
    expect(
      parse({
        ...base,
        t: 'lead',
        offset: 3,
        run: { ...run, prompt: { id: 'a', role: 'assistant' } },
      }),
    ).toEqual({ ...base, t: 'lead', offset: 3, run: { ...run, prompt: null } });
    expect(parse({ ...base, t: 'lead', offset: 3, run: { ...run, token: 5 } })).toBeNull();
    expectKept({ ...base, t: 'sync', runId: 'r', offset: 7 });
    expect(parse({ ...base, t: 'sync', runId: 'r', offset: -1 })).toBeNull();
    expectKept({ ...base, t: 'thread', threadId: 't', envelopes: [delta(1)] });
    const snapshot = { runId: 'r', threadId: 't', status: 'running', lastOffset: 4, messages: [] };
    expectKept({ ...base, t: 'snapshot', to: ME, snapshot });
    // Meant for another tab, or not a snapshot.
    expect(parse({ ...base, t: 'snapshot', to: 'tab-3', snapshot })).toBeNull();
    expect(
      parse({ ...base, t: 'snapshot', to: ME, snapshot: { ...snapshot, lastOffset: '4' } }),
    ).toBeNull();
  });
});

describe('chunkEnvelopes (bounded messages)', () => {
  it('splits by count, keeping every envelope in order', () => {
    const envelopes = Array.from({ length: MAX_BATCH_EVENTS * 2 + 3 }, (_, i) => delta(i + 1));
    const chunks = chunkEnvelopes(envelopes);
    expect(chunks.map((c) => c.length)).toEqual([MAX_BATCH_EVENTS, MAX_BATCH_EVENTS, 3]);
    expect(chunks.flat()).toEqual(envelopes);
    for (const chunk of chunks) {
      expect(parse(batch(chunk))).not.toBeNull();
    }
  });

  it('splits by size', () => {
    const big = 'z'.repeat(MAX_BATCH_CHARS / 2);
    const chunks = chunkEnvelopes([delta(1, big), delta(2, big), delta(3)]);
    expect(chunks.map((c) => c.map((e) => e.offset))).toEqual([[1], [2, 3]]);
  });
});
