import { createRunState, ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../src/core/net/http.js';
import { mergeRecord, recordOf } from '../src/core/records/record-write.js';
import { RecordWriter } from '../src/core/records/record-writer.js';
import type { RunResumeRecord } from '../src/core/records/run-record.js';
import { parseRecord } from '../src/core/records/run-record.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import {
  createIndexedDbStorage,
  createMemoryStorage,
  withFallback,
} from '../src/core/records/storage.js';
import { backoffDelay, MAX_TIMER_MS, retryDelay, timerDelay } from '../src/core/retry/backoff.js';

describe('backoff', () => {
  it('is exponential with full jitter, capped at maxMs', () => {
    const top = () => 0.999999;
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(n, top))).toEqual([
      249, 499, 999, 1999, 3999, 7999, 9999, 9999,
    ]);
    // Never below minMs (50 by default): no answer can make a request loop.
    expect(backoffDelay(6, () => 0)).toBe(50);
    expect(backoffDelay(3, () => 0.5)).toBe(500);
    expect(backoffDelay(2, () => 0.5, { initialMs: 100, maxMs: 150 })).toBe(75);
    expect(backoffDelay(1000, top)).toBe(9999);
    expect(backoffDelay(1, () => 0, { initialMs: 5, maxMs: 20, minMs: 0 })).toBe(1);
    expect(backoffDelay(1, () => 0, { initialMs: 5, maxMs: 20 })).toBe(20);
  });

  it('honours Retry-After clamped to [minMs, maxMs]; timers never overflow', () => {
    const r = () => 0.5;
    expect(retryDelay(1, r, {}, 0)).toBe(50);
    expect(retryDelay(1, r, {}, 0.25)).toBe(250);
    expect(retryDelay(1, r, {}, 3)).toBe(3000);
    expect(retryDelay(1, r, {}, 1e12)).toBe(10_000);
    expect(retryDelay(1, r, { maxMs: 1e15 }, 1e12)).toBe(MAX_TIMER_MS);
    expect(retryDelay(1, r, {}, Number.NaN)).toBe(125);
    expect(retryDelay(1, r, { minMs: 1000, maxMs: 500 }, 0)).toBe(500);
    expect(timerDelay(1e15)).toBe(MAX_TIMER_MS);
  });
});

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-29T10:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3);
    expect(parseRetryAfter('Sun, 29 Nov 2026 10:00:05 GMT', now)).toBe(5);
    expect(parseRetryAfter('Sun, 29 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('0.5', now)).toBe(0.5);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

const ids = { runId: 'run-a-0123456789abcdef', threadId: 't', token: 'tk' };
const at = (offset: number, key = 'k') => recordOf(key, createRunState({ from: offset }), ids, 1);

describe('the record', () => {
  it('round-trips and rejects what does not hold together', () => {
    const good = at(7);
    expect(parseRecord(good, 'k')).toEqual(good);
    expect(parseRecord(undefined, 'k')).toBeNull();
    const cases: [unknown, string][] = [
      [42, 'not an object'],
      [{ ...good, v: 0 }, 'unknown version 0'],
      [{ ...good, runId: '' }, 'no runId'],
      [{ ...good, offset: -1 }, 'bad offset'],
      [{ ...good, offset: 1.5 }, 'bad offset'],
      [{ ...good, status: 'weird' }, 'bad status'],
      [{ ...good, snapshot: null }, 'not a run snapshot: not an object'],
      [{ ...good, key: 'other' }, 'stored for slot "other"'],
      [
        { ...good, snapshot: { ...good.snapshot, lastOffset: '7' } },
        'not a run snapshot: lastOffset "7"',
      ],
      [{ ...good, base: 8 }, 'bad base'],
      [{ ...good, base: -1 }, 'bad base'],
      [{ ...good, offset: 8 }, 'snapshot and offset disagree'],
      [{ ...good, snapshot: { ...good.snapshot, messages: [null] } }, 'bad message in snapshot'],
    ];
    for (const [value, why] of cases) {
      const error = parseRecord(value, 'k');
      expect(error).toBeInstanceOf(ResumableError);
      expect((error as ResumableError).code).toBe('corrupt_record');
      expect((error as ResumableError).message).toBe(`persisted record "k" discarded: ${why}`);
    }
  });

  it('is monotonic: a lower offset of the same run never replaces a higher one', () => {
    expect(mergeRecord(at(9), at(5)).offset).toBe(9);
    expect(mergeRecord(at(5), at(9)).offset).toBe(9);
    expect(mergeRecord('garbage', at(2)).offset).toBe(2);
    const other = { ...at(1), runId: 'run-b-0123456789abcdef' };
    expect(mergeRecord(at(9), other).runId).toBe('run-b-0123456789abcdef');
    const stopped = { ...at(5), stopped: true as const };
    expect(mergeRecord(stopped, at(6)).stopped).toBe(true);
  });

  it('lets a snapshot replacement move the record back, and fences the replaced state', () => {
    const foreign = at(50); // ahead of the server's log: the 409 case
    const snapshot = { ...at(6), base: 6 };
    // An ordinary write could never move it back…
    expect(mergeRecord(foreign, snapshot).offset).toBe(50);
    // …a replacement does, with its base.
    const replaced = mergeRecord(foreign, snapshot, true);
    expect([replaced.offset, replaced.base]).toEqual([6, 6]);
    // A tab still on the replaced state (base 0) cannot write it back, even further ahead.
    expect(mergeRecord(replaced, at(51))).toBe(replaced);
    // Writes built on the snapshot are monotonic as usual.
    expect(mergeRecord(replaced, { ...at(9), base: 6 }).offset).toBe(9);
    expect(mergeRecord({ ...at(9), base: 6 }, { ...at(7), base: 6 }).offset).toBe(9);
    // A later replacement (another 409) may set a lower base again; a stop still sticks.
    const stopped = { ...at(9), base: 6, stopped: true as const };
    const again = mergeRecord(stopped, { ...at(3), base: 3 }, true);
    expect([again.offset, again.base, again.stopped]).toEqual([3, 3, true]);
    // Records written before `base` existed count as base 0.
    const legacy: Partial<RunResumeRecord> = { ...at(4) };
    delete legacy.base;
    expect(mergeRecord(legacy, at(5)).offset).toBe(5);
    expect(parseRecord({ ...at(4), base: 5 }, 'k')).toBeInstanceOf(ResumableError);
  });

  it('two tabs writing through IndexedDB keep the higher offset', async () => {
    const storage = createIndexedDbStorage({ dbName: 'two-tabs' });
    await Promise.all([
      storage.update('run:k', (old) => mergeRecord(old, at(12))),
      storage.update('run:k', (old) => mergeRecord(old, at(4))),
      storage.update('run:k', (old) => mergeRecord(old, at(8))),
    ]);
    expect(((await storage.get('run:k')) as { offset: number }).offset).toBe(12);
  });
});

describe('storage', () => {
  it('falls back to memory when IndexedDB fails, once, with a typed warning', async () => {
    const broken: RecordStorage = {
      kind: 'indexeddb',
      get: () => Promise.reject(new Error('InvalidStateError')),
      update: () => Promise.reject(new Error('InvalidStateError')),
      delete: () => Promise.reject(new Error('InvalidStateError')),
    };
    const warnings: ResumableError[] = [];
    const storage = withFallback(broken, createMemoryStorage(), (w) => warnings.push(w));
    expect(storage.kind).toBe('indexeddb');
    await storage.update('a', () => 1);
    expect(await storage.get('a')).toBe(1);
    expect(storage.kind).toBe('memory');
    expect(warnings.map((w) => w.code)).toEqual(['storage_unavailable']);
  });
});

describe('storage in time', () => {
  /** A primary whose calls take `delays[i]` ms each (Infinity: never settles). */
  function slow(delays: number[]): RecordStorage {
    const inner = createMemoryStorage();
    let call = 0;
    const later = <T>(op: () => Promise<T>): Promise<T> => {
      const ms = delays[call++] ?? 0;
      if (ms === Number.POSITIVE_INFINITY) return new Promise<T>(() => {});
      return new Promise<T>((resolve) => setTimeout(() => resolve(op()), ms));
    };
    return {
      kind: 'indexeddb',
      get: (key) => later(() => inner.get(key)),
      update: (key, updater) => later(() => inner.update(key, updater)),
      delete: (key) => later(() => inner.delete(key)),
    };
  }

  it('once the storage has answered, a slow call (2× the timeout) is waited for: no fallback', async () => {
    const warnings: ResumableError[] = [];
    const storage = withFallback(
      slow([0, 100, 0]),
      createMemoryStorage(),
      (w) => warnings.push(w),
      50,
    );
    await storage.update('a', () => 1);
    await storage.update('a', (v) => (v as number) + 1);
    expect(await storage.get('a')).toBe(2);
    expect(storage.kind).toBe('indexeddb');
    expect(warnings).toEqual([]);
  });

  it('the first call past the timeout falls back (a hang at open), and so does a later hang past 5×', async () => {
    const first: ResumableError[] = [];
    const atOpen = withFallback(slow([100]), createMemoryStorage(), (w) => first.push(w), 50);
    expect(await atOpen.get('a')).toBe(undefined);
    expect(atOpen.kind).toBe('memory');
    expect(first.map((w) => w.code)).toEqual(['storage_unavailable']);

    const later: ResumableError[] = [];
    const storage = withFallback(
      slow([0, Number.POSITIVE_INFINITY]),
      createMemoryStorage(),
      (w) => later.push(w),
      50,
    );
    await storage.update('a', () => 1);
    const before = Date.now();
    await storage.update('a', () => 2);
    expect(Date.now() - before).toBeGreaterThanOrEqual(245);
    expect(storage.kind).toBe('memory');
    expect(await storage.get('a')).toBe(2);
    expect(later.map((w) => w.code)).toEqual(['storage_unavailable']);
  });
});

describe('RecordWriter', () => {
  it('throttles to the interval, writes at once on flush, and in order', async () => {
    let now = 0;
    const timers: { at: number; fn: () => void }[] = [];
    const storage = createMemoryStorage();
    let offset = 0;
    const writer = new RecordWriter({
      storage,
      storageKey: 'run:k',
      produce: () => at(offset),
      minIntervalMs: 250,
      now: () => now,
      setTimeout: (fn, ms) => {
        const t = { at: now + ms, fn };
        timers.push(t);
        return t;
      },
      clearTimeout: (t) => {
        const i = timers.indexOf(t as (typeof timers)[number]);
        if (i >= 0) timers.splice(i, 1);
      },
      onError: (e) => {
        throw e;
      },
    });
    const advance = (ms: number) => {
      now += ms;
      for (const t of [...timers]) {
        if (t.at <= now) {
          timers.splice(timers.indexOf(t), 1);
          t.fn();
        }
      }
    };
    // 999 batches in 999 ms: 4 writes (at 0, 250, 500, 750), then the terminal flush.
    for (let i = 1; i <= 999; i++) {
      offset = i;
      writer.schedule();
      advance(1);
    }
    expect(writer.writes).toBe(4);
    offset = 1000;
    writer.schedule();
    await writer.flush();
    expect(writer.writes).toBe(5);
    expect(((await storage.get('run:k')) as { offset: number }).offset).toBe(1000);
    await writer.flush();
    expect(writer.writes).toBe(5);
  });
});
