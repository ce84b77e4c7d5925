import type { ThreadsController } from '@resumable/hooks/threads';
import { useEffect, useRef, useState } from 'react';

/**
 * Which conversation this tab shows, and the page's URL for it. The list itself is
 * `useThreads()` (IndexedDB, shared by the tabs); here only the per-tab choice
 * (sessionStorage, localStorage for a fresh tab) and the `?thread=<id>#token=` link that
 * opens a conversation in another tab or on another device.
 */

const CURRENT_KEY = 'resumable-demo:current';

function storedCurrent(): string | null {
  return sessionStorage.getItem(CURRENT_KEY) ?? localStorage.getItem(CURRENT_KEY);
}

function storeCurrent(id: string): void {
  sessionStorage.setItem(CURRENT_KEY, id);
  localStorage.setItem(CURRENT_KEY, id);
}

/**
 * `?thread=<id>` opens (or joins, from another tab) a server thread; another device also
 * needs the thread's token, passed in the fragment (`#token=`) so it never reaches a server.
 */
function linkTarget(): { threadId: string; token: string | null } | null {
  const threadId = new URLSearchParams(location.search).get('thread');
  if (!threadId) return null;
  return { threadId, token: new URLSearchParams(location.hash.slice(1)).get('token') };
}

/** Keeps `?thread=` naming the conversation shown (the fragment's token is dropped). */
export function syncUrl(threadId: string | null): void {
  const url = new URL(location.href);
  if (threadId) url.searchParams.set('thread', threadId);
  else url.searchParams.delete('thread');
  url.hash = '';
  if (url.href !== location.href) history.replaceState(null, '', url);
}

/** A link that opens the thread on another device (it carries the thread's capability). */
export function deviceLink(threadId: string, token: string): string {
  const url = new URL(location.pathname, location.origin);
  url.searchParams.set('thread', threadId);
  url.hash = `token=${encodeURIComponent(token)}`;
  return url.href;
}

/**
 * The conversation this tab shows: the link's, else the one shown last, else the newest;
 * a first visit gets a new one. Null until the list has been read. A conversation deleted
 * in another tab stays shown here until the user picks another.
 */
export function useCurrentThread(
  threads: ThreadsController,
): [string | null, (id: string) => void] {
  const [currentId, setCurrentId] = useState<string | null>(null);
  const started = useRef(false);
  const { loaded, threads: list } = threads;
  useEffect(() => {
    if (!loaded) return;
    const newest = () => {
      if (list[0]) setCurrentId(list[0].id);
      else void threads.create().then(setCurrentId);
    };
    if (!started.current) {
      // Once per page (StrictMode runs effects twice): one join, at most one new entry.
      started.current = true;
      const link = linkTarget();
      const last = storedCurrent();
      if (link) {
        const known = list.find((t) => t.threadId === link.threadId);
        const id = known?.id ?? crypto.randomUUID();
        if (!known || (link.token && !known.token)) {
          const token = link.token ? { token: link.token } : {};
          void threads.touch(id, { threadId: link.threadId, ...token });
        }
        setCurrentId(id);
      } else if (last && list.some((t) => t.id === last)) {
        setCurrentId(last);
      } else {
        newest();
      }
    }
  }, [loaded, list, threads]);
  useEffect(() => {
    if (currentId) storeCurrent(currentId);
  }, [currentId]);
  return [
    currentId !== null && list.some((t) => t.id === currentId) ? currentId : null,
    setCurrentId,
  ];
}
