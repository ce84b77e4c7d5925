import type { Envelope } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import type { OutboxItem } from './state.js';
import { placementOf, planThreadBatch } from './thread-events.js';

const custom = (offset: number, name: string, value: unknown) =>
  ({ offset, event: { type: 'CUSTOM', name, value } }) as Envelope;
const idle = { prompt: null, regenerated: null, sending: null, outbox: [] as OutboxItem[] };
const hi = { id: 'u2', role: 'user' as const, content: 'hi' };

describe('thread events', () => {
  it('a run that started and ended in one batch is still the one to follow, for its stored log (#25)', () => {
    const started = (offset: number, runId: string) =>
      custom(offset, 'resumable.run_started', { runId, messages: [] });
    const ended = (offset: number, runId: string) =>
      custom(offset, 'resumable.run_ended', { runId, status: 'finished' });
    // Another device answered and its continuation ended before this page read the stream.
    expect(planThreadBatch([started(3, 'r2'), ended(4, 'r2')], 'r1')).toEqual({
      follow: { runId: 'r2', prompt: null, parentMessageId: undefined, ended: true },
      reloadHistory: false,
      deleted: false,
    });
    // Two such runs: the last is followed, the one before it is history (one page read).
    expect(
      planThreadBatch([started(3, 'r2'), ended(4, 'r2'), started(5, 'r3'), ended(6, 'r3')], 'r1'),
    ).toEqual({
      follow: { runId: 'r3', prompt: null, parentMessageId: undefined, ended: true },
      reloadHistory: true,
      deleted: false,
    });
    // The followed run's own end (live) reloads nothing.
    expect(planThreadBatch([ended(4, 'r1')], 'r1')).toEqual({
      follow: null,
      reloadHistory: false,
      deleted: false,
    });
  });

  it('a deletion ends the batch: nothing before or after it is followed or reloaded', () => {
    const batch = [
      custom(1, 'resumable.run_started', { runId: 'r1', messages: [] }),
      custom(2, 'resumable.history_changed', { reason: 'deleted' }),
      custom(3, 'resumable.history_changed', { reason: 'renamed', title: 'x' }),
    ];
    expect(planThreadBatch(batch, null)).toEqual({
      follow: null,
      reloadHistory: false,
      deleted: true,
    });
  });

  it('run_started carries where the run hangs; a parent that is no id is unsaid', () => {
    const plan = (parentMessageId: unknown) =>
      planThreadBatch(
        [custom(1, 'resumable.run_started', { runId: 'r2', messages: [hi], parentMessageId })],
        null,
      ).follow;
    expect(plan('a1')).toEqual({ runId: 'r2', prompt: hi, parentMessageId: 'a1' });
    expect(plan(null)).toEqual({ runId: 'r2', prompt: hi, parentMessageId: null });
    expect(plan(7)).toEqual({ runId: 'r2', prompt: hi, parentMessageId: undefined });
  });

  it('placement: an edit’s prompt under its parent, a regenerate beside the old answer, never an own run', () => {
    expect(placementOf(idle, { runId: 'r2', prompt: hi, parentMessageId: 'a1' })).toEqual({
      prompt: { runId: 'r2', message: { ...hi, parentId: 'a1' } },
    });
    expect(placementOf(idle, { runId: 'r3', prompt: null, parentMessageId: 'u1' })).toEqual({
      regenerated: { runId: 'r3', parentId: 'u1' },
    });
    expect(placementOf(idle, { runId: 'r3', prompt: null, parentMessageId: null })).toBeNull();
    expect(placementOf(idle, { runId: 'r3', prompt: hi, parentMessageId: undefined })).toBeNull();
    const own: OutboxItem = { runId: 'r4', text: 'mine', createdAt: 1 };
    expect(
      placementOf({ ...idle, outbox: [own] }, { runId: 'r4', prompt: hi, parentMessageId: 'a1' }),
    ).toBeNull();
  });
});
