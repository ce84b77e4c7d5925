import { withTimeout } from './timeout.js';

/** The part of a store (zustand's, or any) that waiting needs. */
export interface Watchable<S> {
  getState(): S;
  subscribe(listener: (state: S) => void): () => void;
}

/** Resolves once `ready(store.getState())` holds; rejects with `timeout` after `timeoutMs`. */
export function whenReady<S>(
  store: Watchable<S>,
  ready: (state: S) => boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  if (ready(store.getState())) return Promise.resolve();
  let off = () => {};
  const wait = new Promise<void>((resolve) => {
    off = store.subscribe((state) => {
      if (ready(state)) resolve();
    });
  });
  return withTimeout(wait, timeoutMs, what).finally(() => off());
}

/**
 * Runs `action` while `holder` is held (so it is active: its records read, its streams
 * open) and once it is `ready`; the hold ends with the action. What an action called
 * before its session had loaded waits through, instead of being dropped.
 */
export async function whileHeld<S, T>(
  holder: { retain(): () => void; store: Watchable<S> },
  ready: (state: S) => boolean,
  timeoutMs: number,
  action: () => T | Promise<T>,
): Promise<T> {
  const release = holder.retain();
  try {
    await whenReady(holder.store, ready, timeoutMs, 'reading the stored records');
    return await action();
  } finally {
    release();
  }
}
