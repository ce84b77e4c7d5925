import { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { MemoryThreadLog } from '../stores/memory/thread-log.js';
import type { StoredEvent } from '../stores/types.js';
import { Announcer } from './announcer.js';

/** A memory log whose next `failures` appends (to `only`, if given) throw `store_unavailable`. */
function flakyLog(failures: number, only?: string) {
  const log = new MemoryThreadLog();
  let left = failures;
  const append = log.append.bind(log);
  log.append = async (threadId, json, keep) => {
    if ((only === undefined || threadId === only) && left-- > 0) {
      throw new ResumableError('store_unavailable', 'down');
    }
    return append(threadId, json, keep);
  };
  return log;
}

function announcer(log: MemoryThreadLog, budgetMs = 5000, maxQueued = 100) {
  const stored: Array<[string, StoredEvent]> = [];
  const warnings: string[] = [];
  const a = new Announcer({
    log,
    keep: 10,
    budgetMs,
    maxQueued,
    onStored: (threadId, event) => stored.push([threadId, event]),
    warn: (message) => warnings.push(message),
  });
  return { a, stored, warnings };
}

describe('Announcer', () => {
  it('retries through a store outage and keeps each thread in order', async () => {
    const log = flakyLog(2, 't1');
    const { a, stored, warnings } = announcer(log);
    const results = await Promise.all([
      a.announce('t1', { n: 'started' }),
      a.announce('t1', { n: 'ended' }),
      a.announce('t2', { n: 'other' }),
    ]);
    // t1's first append failed twice; t2's went through meanwhile.
    expect(results).toEqual([1, 2, 1]);
    expect(stored).toEqual([
      ['t2', { offset: 1, json: '{"n":"other"}' }],
      ['t1', { offset: 1, json: '{"n":"started"}' }],
      ['t1', { offset: 2, json: '{"n":"ended"}' }],
    ]);
    expect(warnings).toEqual([]);
    expect(a.pending).toBe(0);
  });

  it('drops an announcement the store refuses past the budget, leaving no gap', async () => {
    const log = flakyLog(3);
    const { a, warnings } = announcer(log, 100);
    expect(await a.announce('t', { n: 1 })).toBeNull();
    expect(warnings).toEqual([
      'thread t: an announcement was not stored, dropped: ResumableError: down',
    ]);
    expect(await a.announce('t', { n: 2 })).toBe(1);
    expect(await log.read('t', 0, 10)).toEqual([{ offset: 1, json: '{"n":2}' }]);
  });

  it('bounds what waits, and close() stops retrying', async () => {
    const log = flakyLog(1000);
    const { a, warnings } = announcer(log, 60_000, 2);
    const first = a.announce('t', 1);
    const second = a.announce('t', 2);
    expect(await a.announce('t', 3)).toBeNull();
    expect(warnings).toEqual(['thread t: 2 announcements waiting; one dropped']);
    await a.close(50);
    expect(await Promise.all([first, second])).toEqual([null, null]);
  });
});
