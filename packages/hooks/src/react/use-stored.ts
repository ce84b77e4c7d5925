import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { Watchable } from '../core/base/when.js';
import type { StoredRecords } from '../core/chat/chat-record.js';
import type { ClientHandle } from '../core/client/client-handle.js';
import { subscribePerFrame } from './frame-notify.js';

/**
 * The persisted records of `key`, read for the first paint when the engine is not loaded
 * at the first render (the read starts in that render, beside the engine's `import()`).
 * Null until read, and always null when the engine was already there.
 */
export function useStoredRecords(handle: ClientHandle, key: string): StoredRecords | null {
  const read = useMemo(() => (handle.client() ? null : handle.records(key)), [handle, key]);
  const [done, setDone] = useState<{ read: Promise<StoredRecords>; records: StoredRecords } | null>(
    null,
  );
  useEffect(() => {
    if (!read) return;
    let gone = false;
    void read.then((records) => {
      if (!gone) setDone({ read, records });
    });
    return () => {
      gone = true;
    };
  }, [read]);
  return done && done.read === read ? done.records : null;
}

/**
 * The fields `select` picks from a store (the engine's zustand stores), re-rendering only
 * when one of them changes, at most once an animation frame (`frame-notify.ts`); null
 * while there is no store yet.
 */
export function useSlice<S, T extends Record<string, unknown>>(
  store: Watchable<S> | null,
  select: (state: S) => T,
): T | null {
  const last = useRef<T | null>(null);
  const subscribe = useCallback(
    (listener: () => void) =>
      store ? subscribePerFrame((change) => store.subscribe(change), listener) : () => {},
    [store],
  );
  const snapshot = () => {
    if (!store) return null;
    const next = select(store.getState());
    if (last.current && shallowEqual(last.current, next)) return last.current;
    last.current = next;
    return next;
  };
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

function shallowEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.is(a[k], b[k]));
}
