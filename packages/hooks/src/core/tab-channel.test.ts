import type { Envelope } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import {
  chunkEnvelopes,
  MAX_BATCH_CHARS,
  MAX_BATCH_EVENTS,
  parseTabShareMessage,
} from './tab-channel.js';

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

describe('parseTabShareMessage (every message from another tab is checked)', () => {
  it('takes a well-formed batch as it is', () => {
    const envelopes = [delta(3), delta(4)];
    expect(parseTabShareMessage(batch(envelopes), KEY, ME)).toEqual({
      v: 1,
      t: 'batch',
      tab: 'tab-other',
      key: KEY,
      runId: 'run-1',
      envelopes,
    });
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
    expect(parseTabShareMessage(message, KEY, ME)).toBeNull();
  });

  it('checks lead, sync, thread and snapshot messages', () => {
    const base = { v: 1, tab: 'tab-other', key: KEY };
    const run = {
      runId: 'r',
      threadId: 't',
      token: null,
      prompt: { id: 'u', role: 'user', content: 'hi' },
    };
    expect(parseTabShareMessage({ ...base, t: 'lead', run, offset: 3 }, KEY, ME)).toEqual({
      ...base,
      t: 'lead',
      run,
      offset: 3,
    });
    expect(parseTabShareMessage({ ...base, t: 'lead', run: null, offset: 0 }, KEY, ME)).toEqual({
      ...base,
      t: 'lead',
      run: null,
      offset: 0,
    });
    expect(parseTabShareMessage({ ...base, t: 'lead', run: null, offset: -1 }, KEY, ME)).toBeNull();
    // A prompt that is not a user message is dropped, the run kept.
    expect(
      parseTabShareMessage(
        { ...base, t: 'lead', offset: 3, run: { ...run, prompt: { id: 'a', role: 'assistant' } } },
        KEY,
        ME,
      ),
    ).toEqual({ ...base, t: 'lead', offset: 3, run: { ...run, prompt: null } });
    expect(
      parseTabShareMessage({ ...base, t: 'lead', offset: 3, run: { ...run, token: 5 } }, KEY, ME),
    ).toBeNull();
    expect(parseTabShareMessage({ ...base, t: 'sync', runId: 'r', offset: 7 }, KEY, ME)).toEqual({
      ...base,
      t: 'sync',
      runId: 'r',
      offset: 7,
    });
    expect(
      parseTabShareMessage({ ...base, t: 'sync', runId: 'r', offset: -1 }, KEY, ME),
    ).toBeNull();
    expect(
      parseTabShareMessage({ ...base, t: 'thread', threadId: 't', envelopes: [delta(1)] }, KEY, ME),
    ).toEqual({
      ...base,
      t: 'thread',
      threadId: 't',
      envelopes: [delta(1)],
    });
    const snapshot = { runId: 'r', threadId: 't', status: 'running', lastOffset: 4, messages: [] };
    expect(parseTabShareMessage({ ...base, t: 'snapshot', to: ME, snapshot }, KEY, ME)).toEqual({
      ...base,
      t: 'snapshot',
      to: ME,
      snapshot,
    });
    // Meant for another tab, or not a snapshot.
    expect(
      parseTabShareMessage({ ...base, t: 'snapshot', to: 'tab-3', snapshot }, KEY, ME),
    ).toBeNull();
    expect(
      parseTabShareMessage(
        { ...base, t: 'snapshot', to: ME, snapshot: { ...snapshot, lastOffset: '4' } },
        KEY,
        ME,
      ),
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
      expect(parseTabShareMessage(batch(chunk), KEY, ME)).not.toBeNull();
    }
  });

  it('splits by size', () => {
    const big = 'z'.repeat(MAX_BATCH_CHARS / 2);
    const chunks = chunkEnvelopes([delta(1, big), delta(2, big), delta(3)]);
    expect(chunks.map((c) => c.map((e) => e.offset))).toEqual([[1], [2, 3]]);
  });
});
