import { ResumableError } from '@resumable/protocol';
import { createStore, del, get, update } from 'idb-keyval';
import { DEFAULT_STORAGE_TIMEOUT_MS, SLOW_STORAGE_FACTOR } from '../base/defaults.js';
import { withTimeout } from '../base/timeout.js';

/**
 * Where records live. IndexedDB (via idb-keyval, in its own database so we never touch the
 * app's) when the page has it; a memory map otherwise. Every operation is async so both
 * look the same to the session.
 */
export interface RecordStorage {
  /** `memory` means records do not survive a reload; the connection status says so. */
  readonly kind: 'indexeddb' | 'memory';
  /** The value stored under `key`; undefined when there is none. */
  get(key: string): Promise<unknown>;
  /** Read-modify-write in one transaction: the updater sees the current value. */
  update(key: string, updater: (old: unknown) => unknown): Promise<void>;
  /** Removes `key` and its value; a no-op when there is none. */
  delete(key: string): Promise<void>;
}

/** Where `createIndexedDbStorage` keeps its records: one object store of one database. */
export interface IndexedDbStorageOptions {
  /** @default 'resumable' */
  dbName?: string;
  /** @default 'records' */
  storeName?: string;
}

/** Whether this runtime has IndexedDB (`createIndexedDbStorage` needs it). */
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

/** Storage in a map of this page: records do not survive a reload (`persistence: 'memory'`). */
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

/** The warning for records that could not be kept where they were meant to be. */
export function storageUnavailable(message: string, cause: unknown): ResumableError {
  return new ResumableError('storage_unavailable', message, { cause });
}

/**
 * Uses `primary` until its first failure or a call that does not settle in time (Firefox
 * private windows throw on open, Safari's IndexedDB can hang on open or lose the
 * connection), then the memory fallback for good, saying so once through `onFallback` and
 * to every session watching it (`watchFallback`); `kind` then says `memory`. Losing
 * persistence is a degraded mode, never a crash or a hang.
 * In time: `timeoutMs` until the primary has answered once, then `SLOW_STORAGE_FACTOR` times
 * that — a storage that works but is slow (IndexedDB on a loaded machine takes seconds) is
 * not a hang, and falling back for good would lose the outbox on the next reload.
 */
export function withFallback(
  primary: RecordStorage,
  fallback: RecordStorage,
  onFallback?: (error: ResumableError) => void,
  timeoutMs = DEFAULT_STORAGE_TIMEOUT_MS,
): RecordStorage {
  let current = primary;
  let answered = false;
  const watch: FallbackWatch = { listeners: new Set(onFallback ? [onFallback] : []), error: null };
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
      const reason = String((cause as Error)?.message ?? cause);
      watch.error = storageUnavailable(
        `${primary.kind} storage failed (${reason}); records are kept in memory`,
        cause,
      );
      for (const listener of [...watch.listeners]) tell(listener, watch.error);
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
  watches.set(guarded, watch);
  return guarded;
}

/** Who hears a guarded storage fall back, and its warning once it has. */
interface FallbackWatch {
  readonly listeners: Set<(error: ResumableError) => void>;
  error: ResumableError | null;
}

/**
 * The storages `withFallback` made, with their listeners: one storage is shared by the page
 * (the default, the first paint's), so each session listens for its own life.
 */
const watches = new WeakMap<RecordStorage, FallbackWatch>();

/**
 * Calls `listener` when `storage` (guarded by `withFallback`) falls back to memory — or in
 * a microtask when it already has, so a session made after the fallback hears it too,
 * exactly once. Returns the unsubscribe. Nothing to hear for an unguarded storage.
 */
export function watchFallback(
  storage: RecordStorage,
  listener: (error: ResumableError) => void,
): () => void {
  const watch = watches.get(storage);
  if (!watch) return () => {};
  const heard = (error: ResumableError) => listener(error);
  if (watch.error) {
    const error = watch.error;
    queueMicrotask(() => watch.listeners.has(heard) && tell(heard, error));
  }
  watch.listeners.add(heard);
  return () => watch.listeners.delete(heard);
}

/** One listener that throws (an app's onWarning) neither fails the call nor silences the rest. */
function tell(listener: (error: ResumableError) => void, error: ResumableError): void {
  try {
    listener(error);
  } catch (thrown) {
    console.error('[resumable] a storage fallback listener threw', thrown);
  }
}

/** How many listen to `storage`'s fallback (tests: a disposed session has left). */
export function fallbackListeners(storage: RecordStorage): number {
  return watches.get(storage)?.listeners.size ?? 0;
}

let pageDefault: RecordStorage | undefined;

/**
 * The page's shared storage: IndexedDB when present, else one memory map for the page.
 * `onFallback` hears its fallback to memory for the page's life (once, also when it came
 * before this call); each session listens on its own (`watchFallback`).
 */
export function defaultStorage(onFallback?: (error: ResumableError) => void): RecordStorage {
  pageDefault ??= hasIndexedDb()
    ? withFallback(createIndexedDbStorage(), createMemoryStorage())
    : createMemoryStorage();
  if (onFallback) watchFallback(pageDefault, onFallback);
  return pageDefault;
}

/**
 * The storage a session with these options uses: the page's default, a memory one as
 * given, or any other guarded by `withFallback` (a call that fails or hangs switches to
 * memory for good). A storage `withFallback` made (the default, the first paint's) is
 * used as it is. The sessions and the first-paint read (`first-paint.ts`) take it from here
 * and hear its fallback through `watchFallback`.
 */
export function storageFor(options: {
  storage?: RecordStorage | undefined;
  storageTimeoutMs?: number | undefined;
}): RecordStorage {
  const storage = options.storage ?? defaultStorage();
  return storage.kind === 'memory' || watches.has(storage)
    ? storage
    : withFallback(storage, createMemoryStorage(), undefined, options.storageTimeoutMs);
}
