import type { ResumableError } from '@resumable/protocol';
import type { ObservedBase, ObservedScope } from '../base/observe.js';
import { notify, observed } from '../base/observe.js';
import type { RecordStorage } from './storage.js';
import { watchFallback } from './storage.js';

// A session's side of its storage (the engine's; the first paint only reads records): its
// fallback to memory heard, and told to the observers with the kind it starts with.

/** Where a session's records live (`observeClient`): told at its start and on a fallback. */
export interface ObservedStorage extends ObservedBase {
  /** Where records are kept changed (or was first decided). */
  readonly type: 'storage';
  /** `indexeddb`, or `memory`: records do not survive a reload. */
  readonly storage: 'indexeddb' | 'memory';
  /** Why records went to memory (the fallback's `storage_unavailable`), or null. */
  readonly reason: ResumableError | null;
}

/**
 * Calls `onFallback` when `storage` falls back to memory (`watchFallback`), telling the
 * observers of `scope` its kind now and the fallback when it comes. Returns the unsubscribe.
 */
export function watchStorage(
  storage: RecordStorage,
  scope: ObservedScope | undefined,
  onFallback: (error: ResumableError) => void,
): () => void {
  const tell = (reason: ResumableError | null) => {
    if (!scope || !observed()) return;
    const { endpoint, key } = scope;
    notify<ObservedStorage>({ type: 'storage', endpoint, key, storage: storage.kind, reason });
  };
  tell(null);
  return watchFallback(storage, (error) => {
    tell(error);
    onFallback(error);
  });
}
