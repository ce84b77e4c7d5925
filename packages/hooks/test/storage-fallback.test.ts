/**
 * One storage falls back to memory for the page (the default, or the first paint's), and
 * every session on it hears that once: one made before the fallback, one made after it, one
 * handed the first paint's storage. A disposed session has left the listeners.
 */
import type { ResumableError } from '@resumable/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClientHandle } from '../src/core/client/client-handle.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import {
  createMemoryStorage,
  fallbackListeners,
  withFallback,
} from '../src/core/records/storage.js';
import { RunSession } from '../src/core/run/run-session.js';

const endpoint = 'http://127.0.0.1:9/api';
const FELL_BACK = (reason: string) =>
  `storage_unavailable: indexeddb storage failed (${reason}); records are kept in memory`;

/** An IndexedDB that throws on every call (Firefox private windows, a blocked origin). */
function brokenIdb(reason: string): RecordStorage {
  const fail = () => Promise.reject(new Error(reason));
  return { kind: 'indexeddb', get: fail, update: fail, delete: fail };
}

type SessionClass = typeof RunSession;

/** A session on `storage` (the page default without it) and what its onWarning heard. */
function open(Session: SessionClass, key: string, storage?: RecordStorage) {
  const heard: string[] = [];
  const session = new Session({
    endpoint,
    key,
    ...(storage ? { storage } : {}),
    onWarning: (w: ResumableError) => heard.push(`${w.code}: ${w.message}`),
  });
  return { session, heard, codes: () => session.getState().warnings.map((w) => w.code) };
}

describe('the page default storage falls back once, and every session hears it', () => {
  beforeEach(() => {
    // A fresh storage module (no page default yet) on an IndexedDB whose open throws.
    vi.resetModules();
    vi.stubGlobal('indexedDB', {
      open() {
        throw new Error('blocked');
      },
    });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('a session made before the fallback and one made after it: one warning each, memory', async () => {
    const { RunSession: Session } = await import('../src/core/run/run-session.js');
    const storage = await import('../src/core/records/storage.js');
    const before = open(Session, 'a');
    expect(before.session.storage).toBe(storage.defaultStorage());
    expect(before.session.getState().connection.persistence).toBe('indexeddb');

    await before.session.hydrate(); // the read fails: the page's storage is memory now
    expect(before.heard).toEqual([FELL_BACK('blocked')]);
    expect(before.codes()).toEqual(['storage_unavailable']);
    expect(before.session.getState().connection.persistence).toBe('memory');

    const after = open(Session, 'b');
    expect(after.session.storage).toBe(before.session.storage);
    expect(after.session.getState().connection.persistence).toBe('memory');
    await after.session.hydrate();
    expect(after.heard).toEqual([FELL_BACK('blocked')]);
    expect(after.codes()).toEqual(['storage_unavailable']);
    expect(after.session.getState().connection.persistence).toBe('memory');
    expect(before.heard).toHaveLength(1);

    // Records still work, in memory, for both.
    await after.session.storage.update('x', () => 1);
    expect(await before.session.storage.get('x')).toBe(1);
    await Promise.all([before.session.dispose(), after.session.dispose()]);
    expect(storage.fallbackListeners(storage.defaultStorage())).toBe(0);
  });

  it('defaultStorage(onFallback) still tells its caller, also a caller after the fallback', async () => {
    const { defaultStorage } = await import('../src/core/records/storage.js');
    const first: string[] = [];
    const page = defaultStorage((w) => first.push(w.code));
    expect(await page.get('k')).toBeUndefined();
    expect(first).toEqual(['storage_unavailable']);
    const late: string[] = [];
    expect(defaultStorage((w) => late.push(w.code))).toBe(page);
    expect(late).toEqual([]); // told in a microtask, not inside the call
    await Promise.resolve();
    expect(late).toEqual(['storage_unavailable']);
    expect(first).toEqual(['storage_unavailable']);
  });
});

describe('a guarded storage shared by sessions', () => {
  it('a disposed session has left: no call after dispose, the listeners back to what they were', async () => {
    const storage = withFallback(brokenIdb('InvalidStateError'), createMemoryStorage());
    const base = fallbackListeners(storage);
    const gone = open(RunSession, 'gone', storage);
    const kept = open(RunSession, 'kept', storage);
    expect(fallbackListeners(storage)).toBe(base + 2);
    await gone.session.dispose();
    expect(fallbackListeners(storage)).toBe(base + 1);

    // Deactivated (its last holder left) then held again: still listening.
    kept.session.retain()();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const release = kept.session.retain();
    await kept.session.hydrate();
    expect(kept.heard).toEqual([FELL_BACK('InvalidStateError')]);
    expect(kept.session.getState().connection.persistence).toBe('memory');
    expect(gone.heard).toEqual([]);
    expect(gone.codes()).toEqual([]);

    release();
    await kept.session.dispose();
    expect(fallbackListeners(storage)).toBe(base);
  });

  it('a listener that throws neither fails the call nor silences the others', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const storage = withFallback(brokenIdb('QuotaExceededError'), createMemoryStorage(), () => {
      throw new Error('app bug');
    });
    const kept = open(RunSession, 'kept', storage);
    expect(await storage.get('k')).toBeUndefined();
    expect(storage.kind).toBe('memory');
    expect(kept.heard).toEqual([FELL_BACK('QuotaExceededError')]);
    expect(errors.mock.calls.map(([m, e]) => [m, (e as Error).message])).toEqual([
      ['[resumable] a storage fallback listener threw', 'app bug'],
    ]);
    errors.mockRestore();
    await kept.session.dispose();
  });

  it("the first paint's storage: each session handed it warns once, the handle adds none", async () => {
    const heard: string[] = [];
    const options = {
      endpoint,
      storage: brokenIdb('SecurityError'),
      onWarning: (w: ResumableError) => heard.push(`${w.code}: ${w.message}`),
    };
    const client = new ResumableClient(options);
    const handle = new ClientHandle(options, () => client);
    const read = await handle.records('a'); // the first paint's read falls back
    expect(read.run).toEqual({ record: null, problem: null });
    expect(handle.persistence()).toBe('memory');
    expect(heard).toEqual([]);

    const a = handle.run(client, 'a', {});
    const b = handle.chat(client, 'b', {});
    expect(b.run.storage).toBe(a.storage);
    await Promise.all([a.hydrate(), b.run.hydrate()]);
    expect(heard).toEqual([FELL_BACK('SecurityError'), FELL_BACK('SecurityError')]);
    expect(a.getState().warnings.map((w) => w.code)).toEqual(['storage_unavailable']);
    expect(b.run.getState().warnings.map((w) => w.code)).toEqual(['storage_unavailable']);
    expect([a, b.run].map((s) => s.getState().connection.persistence)).toEqual([
      'memory',
      'memory',
    ]);
    await client.dispose();
    expect(fallbackListeners(a.storage)).toBe(0);
  });
});
