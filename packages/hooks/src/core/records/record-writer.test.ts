import { describe, expect, it } from 'vitest';
import { RecordWriter } from './record-writer.js';
import type { RunResumeRecord } from './run-record.js';

/**
 * The throttle and its way out: between two throttled writes the newest resume point waits
 * (up to 250 ms); `flush()` (what the session calls on page hide) writes it at once.
 */
describe('RecordWriter', () => {
  it('holds changes inside the interval, and flush() writes the newest at once', async () => {
    let clock = 1_000;
    let offset = 0;
    const stored: number[] = [];
    /** Pending timers by handle: when each would fire. */
    const timers = new Map<number, number>();
    let handles = 0;
    const writer = new RecordWriter({
      storage: {
        kind: 'memory',
        get: async () => undefined,
        delete: async () => {},
        update: async (_key, updater) => {
          stored.push((updater(undefined) as RunResumeRecord).offset);
        },
      },
      storageKey: 'run:k',
      produce: () => ({ v: 1, key: 'k', runId: 'r', offset }) as unknown as RunResumeRecord,
      minIntervalMs: 250,
      now: () => clock,
      setTimeout: (_run, ms) => {
        timers.set(++handles, clock + ms);
        return handles;
      },
      clearTimeout: (handle) => timers.delete(handle as number),
      onError: (error) => {
        throw error;
      },
    });

    offset = 3;
    writer.schedule(); // the first write goes out at once
    await writer.idle();
    clock += 100;
    offset = 7;
    writer.schedule(); // inside the interval: waits for its timer (251 ms after the first)
    await writer.idle();
    expect([stored, [...timers.values()]]).toEqual([[3], [1_251]]);

    clock += 50;
    offset = 9;
    await writer.flush(); // page hide: the newest point now, the timer cancelled
    expect([stored, timers.size]).toEqual([[3, 9], 0]);
    await writer.flush(); // nothing changed since: no second write
    expect(stored).toEqual([3, 9]);
  });
});
