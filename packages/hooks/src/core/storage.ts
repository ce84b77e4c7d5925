import { ResumableError } from '@resumable/protocol';
import { createStore, del, get, update } from 'idb-keyval';
import { withTimeout } from './timeout.js';

/**
 * Where records live. IndexedDB (via idb-keyval, in its own database so we never touch the
 * app's) when the page has it; a memory map otherwise. Every operation is async so both
 * look the same to the session.
 */
export interface RecordStorage {
  /** `memory` means records do not survive a reload; the connection status says so. */
  readonly kind: 'indexeddb' | 'memory';
  get(key: string): Promise<unknown>;
  /** Read-modify-write in one transaction: the updater sees the current value. */
  update(key: string, updater: (old: unknown) => unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface IndexedDbStorageOptions {
  /** @default 'resumable' */
  dbName?: string;
  /** @default 'records' */
  storeName?: string;
}

export function hasIndexedDb(): boolean {
  return (
    typeof (globalThis as { indexedDB?: unknown }).indexedDB === 'object' &&
    (globalThis as { indexedDB?: unknown }).indexedDB !== null
  );
}

/** IndexedDB storage. The database opens on first use, not at import. */
export function createIndexedDbStorage(options: IndexedDbStorageOptions = {}): RecordStorage {
  let store: ReturnType<typeof createStore> | undefined;
  const db = () => {
    store ??= createStore(options.dbName ?? 'resumable', options.storeName ?? 'records');
    return store;
  };
  return {
    kind: 'indexeddb',
    get: (key) => get(key, db()),
    // idb-keyval's update runs the updater inside one readwrite transaction: two tabs
    // writing the same key are serialized by IndexedDB itself.
    update: (key, updater) => update(key, updater, db()),
    delete: (key) => del(key, db()),
  };
}

const clone: <T>(value: T) => T =
  typeof structuredClone === 'function' ? (value) => structuredClone(value) : (value) => value;

export function createMemoryStorage(): RecordStorage {
  const map = new Map<string, unknown>();
  return {
    kind: 'memory',
    get: async (key) => clone(map.get(key)),
    update: async (key, updater) => {
      const next = updater(clone(map.get(key)));
      if (next === undefined) map.delete(key);
      else map.set(key, clone(next));
    },
    delete: async (key) => {
      map.delete(key);
    },
  };
}

/** Storage calls settle within this, or count as a failure. @default 3000 */
export const DEFAULT_STORAGE_TIMEOUT_MS = 3000;
/** How much longer a call may take once the storage has answered (see `withFallback`). */
export const SLOW_STORAGE_FACTOR = 5;

/**
 * Uses `primary` until its first failure or a call that does not settle in time (Firefox
 * private windows throw on open, Safari's IndexedDB can hang on open or lose the
 * connection), then the memory fallback for good, saying so once through `onFallback`;
 * `kind` then says `memory`. Losing persistence is a degraded mode, never a crash or a hang.
 * In time: `timeoutMs` until the primary has answered once, then `SLOW_STORAGE_FACTOR` times
 * that — a storage that works but is slow (IndexedDB on a loaded machine takes seconds) is
 * not a hang, and falling back for good would lose the outbox on the next reload.
 */
export function withFallback(
  primary: RecordStorage,
  fallback: RecordStorage,
  onFallback: (error: ResumableError) => void,
  timeoutMs = DEFAULT_STORAGE_TIMEOUT_MS,
): RecordStorage {
  let current = primary;
  let answered = false;
  const run = async <T>(op: (storage: RecordStorage) => Promise<T>): Promise<T> => {
    if (current === fallback) return op(fallback);
    try {
      const limit = answered ? timeoutMs * SLOW_STORAGE_FACTOR : timeoutMs;
      const result = await withTimeout(op(current), limit, 'a storage call');
      answered = true;
      return result;
    } catch (cause) {
      if (current === fallback) return op(fallback);
      current = fallback;
      onFallback(
        new ResumableError(
          'storage_unavailable',
          `${primary.kind} storage failed (${String((cause as Error)?.message ?? cause)}); records are kept in memory`,
          { cause },
        ),
      );
      return op(fallback);
    }
  };
  const guarded: RecordStorage = {
    get kind() {
      return current.kind;
    },
    get: (key) => run((s) => s.get(key)),
    update: (key, updater) => run((s) => s.update(key, updater)),
    delete: (key) => run((s) => s.delete(key)),
  };
  alreadyGuarded.add(guarded);
  return guarded;
}

/** Storages `withFallback` made: a session handed one (the first paint's) does not wrap it again. */
const alreadyGuarded = new WeakSet<RecordStorage>();

let pageDefault: RecordStorage | undefined;

/** The page's shared storage: IndexedDB when present, else one memory map for the page. */
export function defaultStorage(onFallback?: (error: ResumableError) => void): RecordStorage {
  if (pageDefault) return pageDefault;
  const memory = createMemoryStorage();
  pageDefault = hasIndexedDb()
    ? withFallback(createIndexedDbStorage(), memory, (error) => onFallback?.(error))
    : memory;
  return pageDefault;
}

/**
 * A session's storage: memory as given; anything else guarded by `withFallback` (a call
 * that fails or hangs switches to memory, saying so through `onFallback`).
 */
export function guardStorage(
  storage: RecordStorage,
  onFallback: (error: ResumableError) => void,
  timeoutMs?: number,
): RecordStorage {
  // The page's default storage is guarded once for the page (its memory fallback shared).
  return storage.kind === 'memory' || storage === pageDefault || alreadyGuarded.has(storage)
    ? storage
    : withFallback(storage, createMemoryStorage(), onFallback, timeoutMs);
}

/**
 * The storage a session with these options uses: the given one or the page's default,
 * guarded. The sessions and the first-paint read (`first-paint.ts`) both take it from here.
 */
export function storageFor(
  options: { storage?: RecordStorage | undefined; storageTimeoutMs?: number | undefined },
  warn: (error: ResumableError) => void,
): RecordStorage {
  return guardStorage(options.storage ?? defaultStorage(warn), warn, options.storageTimeoutMs);
}
