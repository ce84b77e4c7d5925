import { useSyncExternalStore } from 'react';

/**
 * The demo's conversation list, kept in localStorage so it survives reloads and is shared
 * by every tab (the `storage` event keeps tabs in sync). A conversation gets its server
 * `threadId` from the first run's answer; until then it is a local draft.
 */

export interface ThreadEntry {
  /** Local id, stable from creation (the React key of its chat). */
  id: string;
  /** The server's thread id, once the first prompt started a run. */
  threadId: string | null;
  /**
   * The thread's capability token, when this browser did not start the thread (opened from
   * a link with `#token=`). A browser that started it keeps the token in IndexedDB.
   */
  token?: string;
  title: string;
  createdAt: number;
}

export interface ThreadsState {
  threads: ThreadEntry[];
  currentId: string;
}

const KEY = 'resumable-demo:threads';
const CURRENT_KEY = 'resumable-demo:current';
const listeners = new Set<() => void>();
let state: ThreadsState = load();

function newEntry(threadId: string | null = null): ThreadEntry {
  return { id: crypto.randomUUID(), threadId, title: 'New conversation', createdAt: Date.now() };
}

function isEntry(value: unknown): value is ThreadEntry {
  const v = value as ThreadEntry;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.id === 'string' &&
    (v.threadId === null || typeof v.threadId === 'string') &&
    typeof v.title === 'string' &&
    (v.token === undefined || typeof v.token === 'string')
  );
}

function load(): ThreadsState {
  let threads: ThreadEntry[] = [];
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    if (Array.isArray(parsed)) threads = parsed.filter(isEntry);
  } catch {
    // A corrupt list is replaced, never a reason not to start.
  }
  // `?thread=<id>` opens (or joins, from another tab) a server thread; another device also
  // needs the thread's token, passed in the fragment (`#token=`) so it never reaches a server.
  const fromUrl = new URLSearchParams(location.search).get('thread');
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? undefined;
  let current = sessionStorage.getItem(CURRENT_KEY) ?? localStorage.getItem(CURRENT_KEY);
  if (fromUrl) {
    let entry = threads.find((t) => t.threadId === fromUrl);
    if (!entry) {
      entry = { ...newEntry(fromUrl), title: 'Joined conversation', ...(token ? { token } : {}) };
      threads = [entry, ...threads];
    }
    current = entry.id;
  }
  if (threads.length === 0) threads = [newEntry()];
  if (!threads.some((t) => t.id === current)) current = threads[0]!.id;
  return { threads, currentId: current! };
}

function commit(next: ThreadsState) {
  state = next;
  localStorage.setItem(KEY, JSON.stringify(next.threads));
  // Per tab (sessionStorage) so two tabs can show different threads; localStorage is the
  // fallback for a fresh tab.
  sessionStorage.setItem(CURRENT_KEY, next.currentId);
  localStorage.setItem(CURRENT_KEY, next.currentId);
  syncUrl();
  for (const listener of listeners) listener();
}

function syncUrl() {
  const current = state.threads.find((t) => t.id === state.currentId);
  const url = new URL(location.href);
  if (current?.threadId) url.searchParams.set('thread', current.threadId);
  else url.searchParams.delete('thread');
  url.hash = '';
  if (url.href !== location.href) history.replaceState(null, '', url);
}

window.addEventListener('storage', (event) => {
  if (event.key !== KEY) return;
  const fresh = load();
  state = { threads: fresh.threads, currentId: state.currentId };
  for (const listener of listeners) listener();
});

export const threads = {
  get: () => state,
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  create() {
    const entry = newEntry();
    commit({ threads: [entry, ...state.threads], currentId: entry.id });
  },
  select(id: string) {
    if (state.threads.some((t) => t.id === id)) commit({ ...state, currentId: id });
  },
  /** Records the server thread of a draft and names it after its first prompt. */
  update(id: string, patch: Partial<Pick<ThreadEntry, 'threadId' | 'title' | 'token'>>) {
    commit({
      ...state,
      threads: state.threads.map((t) => (t.id === id ? { ...t, ...patch } : t)),
    });
  },
};

syncUrl();

/** A link that opens the thread on another device (it carries the thread's capability). */
export function deviceLink(threadId: string, token: string): string {
  const url = new URL(location.pathname, location.origin);
  url.searchParams.set('thread', threadId);
  url.hash = `token=${encodeURIComponent(token)}`;
  return url.href;
}

export function useThreads(): ThreadsState {
  return useSyncExternalStore(threads.subscribe, threads.get);
}
