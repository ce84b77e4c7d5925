import { describe, expect, it } from 'vitest';
import type { ConversationEffect } from './machine.js';
import { ConversationQueue, MAX_QUEUED_INPUTS } from './queue.js';

const run = (runId: string) => ({ runId, threadId: 't1', token: 'tok', ended: false });

describe('ConversationQueue: one input at a time, in arrival order', () => {
  it('an input sent by an effect waits for the other effects of the input before it', () => {
    const done: string[] = [];
    const queue: ConversationQueue = new ConversationQueue((effect: ConversationEffect) => {
      done.push(effect.type === 'join' ? `join ${effect.run.runId}` : effect.type);
      // The settle's store update makes a listener report a run (re-entrant).
      if (effect.type === 'settle' && queue.state.run === 'r1') {
        queue.send({ type: 'heard', run: run('r2') });
        done.push('sent r2');
      }
    });
    queue.send({ type: 'loaded', run: null });
    queue.send({ type: 'heard', run: run('r1') });
    expect(done).toEqual(['settle', 'sent r2', 'join r1', 'settle', 'join r2']);
    expect([queue.state.phase, queue.state.run, queue.state.past]).toEqual([
      'joining',
      'r2',
      ['r1'],
    ]);
  });

  it('an effect that throws is reported; the next input still runs', () => {
    const errors: unknown[] = [];
    const queue = new ConversationQueue(
      (effect) => {
        if (effect.type === 'settle') throw new Error('boom');
      },
      () => {},
      (error) => errors.push(error),
    );
    queue.send({ type: 'loaded', run: null });
    queue.send({ type: 'heard', run: run('r1') });
    queue.send({ type: 'joined', runId: 'r1', ended: false });
    expect(errors).toHaveLength(1);
    expect([queue.state.phase, queue.state.run]).toEqual(['live', 'r1']);
  });

  it(`inputs past ${MAX_QUEUED_INPUTS} waiting are dropped and said`, () => {
    const dropped: string[] = [];
    let flood = true;
    const queue: ConversationQueue = new ConversationQueue(
      () => {
        if (!flood) return;
        flood = false;
        for (let i = 0; i < MAX_QUEUED_INPUTS + 5; i++) {
          queue.send({ type: 'batch', runId: 'r1', batch: i });
        }
      },
      (input) => dropped.push(input.type),
    );
    queue.send({ type: 'loaded', run: { runId: 'r1', ended: false } });
    expect(dropped).toEqual(['batch', 'batch', 'batch', 'batch', 'batch']);
  });
});
