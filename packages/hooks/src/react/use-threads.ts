import { messageText } from '@resumable/protocol';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useStore } from 'zustand';
import type { ClientHandle } from '../core/client/client-handle.js';
import type { ChatController } from '../core/client/controller.js';
import {
  localThreadSource,
  ThreadIndex,
  type ThreadIndexState,
  type ThreadPatch,
  type ThreadSource,
  titleFromPrompt,
} from '../core/threads/thread-index.js';
import { useOptionalHandle } from './provider.js';

/** `useThreads`' options: where the list comes from. */
export interface UseThreadsOptions {
  /**
   * Base URL of the server routes.
   * @default the enclosing <ResumableProvider>'s
   */
  endpoint?: string;
  /**
   * Where the list lives: an app that keeps its own list per user passes its functions.
   * @default this browser's IndexedDB index (`localThreadSource`)
   */
  source?: ThreadSource;
  /** A `ThreadIndex` you made yourself (tests, sharing outside React). */
  index?: ThreadIndex;
}

/** What `useThreads` returns: the list, newest first, and its actions. */
export interface ThreadsController extends ThreadIndexState {
  /** A new empty conversation at the top; resolves with its id (the chat's `key`). */
  create(): Promise<string>;
  /** `PATCH /threads/{id}` and the local title. Rejects (and sets `error`) when refused. */
  rename(id: string, title: string): Promise<void>;
  /** `DELETE /threads/{id}` and every local record of it. Rejects when refused. */
  remove(id: string): Promise<void>;
  /** Records what a chat learned (thread, token, title, activity); see `useTrackThread`. */
  touch(id: string, patch: ThreadPatch): Promise<void>;
}

/** One index per endpoint (or per source) per page, like the sessions. */
const byEndpoint = new Map<string, ThreadIndex>();
const bySource = new WeakMap<ThreadSource, ThreadIndex>();

/** The page's index for the app's `source`, else for the client's endpoint. */
function indexOf(
  source: ThreadSource | undefined,
  client: Pick<ClientHandle, 'options'> | null,
): ThreadIndex {
  if (source) {
    const known = bySource.get(source);
    if (known) return known;
    const made = new ThreadIndex(source);
    bySource.set(source, made);
    return made;
  }
  if (!client)
    throw new Error('useThreads needs an `endpoint`, a <ResumableProvider> or a `source`');
  const { endpoint, storage, headers, env } = client.options;
  const known = byEndpoint.get(endpoint);
  if (known) return known;
  const made = new ThreadIndex(
    localThreadSource({
      endpoint,
      ...(storage ? { storage } : {}),
      ...(headers ? { headers } : {}),
      ...(env?.fetch ? { fetch: env.fetch } : {}),
    }),
  );
  byEndpoint.set(endpoint, made);
  return made;
}

/**
 * The conversations this browser knows (or the app's `source`), newest first, with new /
 * rename / delete. Every component using it on a page shares one list; tabs stay in sync.
 */
export function useThreads(options: UseThreadsOptions = {}): ThreadsController {
  const client = useOptionalHandle(options.endpoint);
  const { index: given, source } = options;
  const index = useMemo(() => given ?? indexOf(source, client), [given, source, client]);
  useEffect(() => {
    void index.load();
  }, [index]);
  const state = useStore(index.store);
  const create = useCallback(() => index.create(), [index]);
  const rename = useCallback((id: string, title: string) => index.rename(id, title), [index]);
  const remove = useCallback((id: string) => index.remove(id), [index]);
  const touch = useCallback((id: string, patch: ThreadPatch) => index.touch(id, patch), [index]);
  return useMemo(
    () => ({ ...state, create, rename, remove, touch }),
    [state, create, rename, remove, touch],
  );
}

/**
 * Keeps a conversation's entry up to date from its chat: the server thread and token once
 * known, the title from the first prompt, and activity (a new prompt moves it to the top).
 */
export function useTrackThread(
  threads: Pick<ThreadsController, 'touch'>,
  id: string,
  chat: Pick<ChatController, 'threadId' | 'messages'> & { token?: string | null },
): void {
  const { touch } = threads;
  const { threadId, messages } = chat;
  const token = chat.token ?? null;
  const first = messages.find((m) => m.role === 'user');
  const title = first ? titleFromPrompt(messageText(first)) : null;
  const lastPrompt = messages.findLast((m) => m.role === 'user')?.id ?? null;
  // The prompt seen first is where this page came in, not new activity.
  const seen = useRef<string | null | undefined>(undefined);
  useEffect(() => {
    const active = seen.current !== undefined && lastPrompt !== seen.current;
    if (seen.current === undefined || lastPrompt !== null) seen.current = lastPrompt;
    void touch(id, {
      ...(threadId ? { threadId } : {}),
      ...(token ? { token } : {}),
      ...(title ? { title } : {}),
      ...(active ? { active } : {}),
    }).catch(() => {});
  }, [touch, id, threadId, token, title, lastPrompt]);
}
