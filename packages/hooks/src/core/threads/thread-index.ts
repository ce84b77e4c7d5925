import { isWireId, ResumableError } from '@resumable/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import {
  DEFAULT_MAX_THREADS,
  MAX_ENTRY_ID_CHARS,
  MAX_LISTED_THREADS,
  MAX_PROMPT_TITLE_CHARS,
  MAX_TITLE_CHARS,
  MAX_TOKEN_CHARS,
} from '../base/defaults.js';
import { createEnvironment, type TabChannel } from '../base/env.js';
import { chatRecordKey } from '../chat/chat-record.js';
import type { EndpointOptions } from '../net/endpoint.js';
import { deleteThread, renameThread } from '../net/thread-api.js';
import { runRecordKey } from '../records/run-record.js';
import type { RecordStorage } from '../records/storage.js';
import { defaultStorage } from '../records/storage.js';

/**
 * The conversations this browser knows, newest first: a bounded index in the records
 * storage (IndexedDB), or an app's own list (`ThreadSource`). Framework-free; `useThreads`
 * is its React adapter.
 */

export interface ThreadEntry {
  /** Local id, stable from creation: the chat's persistence key (`useResumableChat({key})`). */
  id: string;
  /** The server's thread, once the first upload or prompt created it. */
  threadId: string | null;
  /** The thread's capability (`PATCH` / `DELETE` need it). */
  token: string | null;
  /** Null until the first prompt names it, or a rename. */
  title: string | null;
  /** Last activity, epoch ms (the list's order). */
  updatedAt: number;
}

/** Where the list lives. Apps that keep a list per user on their server implement this. */
export interface ThreadSource {
  /** Every entry, in any order. */
  list(): Promise<ThreadEntry[]>;
  /** Inserts or replaces the entry with `entry.id`. */
  put(entry: ThreadEntry): Promise<void>;
  /** Renames the thread (on the server too, when it has one). */
  rename(entry: ThreadEntry, title: string): Promise<void>;
  /** Deletes the thread everywhere: the server's copy and this browser's records. */
  remove(entry: ThreadEntry): Promise<void>;
}

/**
 * `localThreadSource`'s options: the server its renames and deletions go to (as for the
 * sessions), where the list is kept and how long it may grow.
 */
export interface LocalThreadSourceOptions extends EndpointOptions {
  /** @default the page's records storage (IndexedDB, memory without it) */
  storage?: RecordStorage;
  /** Entries kept; the least recently active are dropped past it. @default 100 */
  maxThreads?: number;
}

/** The key `localThreadSource` keeps the list under in its storage. */
export const THREAD_INDEX_KEY = 'threads:index';
function isEntry(value: unknown): value is ThreadEntry {
  const v = value as ThreadEntry;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.id === 'string' &&
    (v.threadId === null || typeof v.threadId === 'string') &&
    (v.token === null || typeof v.token === 'string') &&
    (v.title === null || typeof v.title === 'string') &&
    Number.isFinite(v.updatedAt)
  );
}

const isLocalId = (v: unknown): v is string =>
  typeof v === 'string' && v !== '' && v.length <= MAX_ENTRY_ID_CHARS;

/**
 * An entry another tab posted, within bounds: its id a key of at most
 * `MAX_ENTRY_ID_CHARS` (any characters: an app chooses its keys), its `threadId` a wire id
 * (`isWireId`: the server takes no other), its title at most `MAX_TITLE_CHARS`.
 */
function isTabEntry(value: unknown): value is ThreadEntry {
  if (!isEntry(value)) return false;
  const { id, threadId, token, title } = value;
  return (
    isLocalId(id) &&
    (threadId === null || isWireId(threadId)) &&
    (token === null || token.length <= MAX_TOKEN_CHARS) &&
    // Measured in code points only once it is short enough in UTF-16 units to be cheap.
    (title === null ||
      (title.length <= 2 * MAX_TITLE_CHARS && [...title].length <= MAX_TITLE_CHARS))
  );
}

/** Newest first; ties by id, so two tabs show one order. */
export function sortThreads(entries: readonly ThreadEntry[]): ThreadEntry[] {
  return [...entries].sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : 1));
}

/**
 * At most `MAX_LISTED_THREADS` entries, newest first, each id once (its newest entry): a
 * list read from storage another version wrote, or from an app's source, may be any size.
 */
export function newestThreads(entries: readonly ThreadEntry[]): ThreadEntry[] {
  const seen = new Set<string>();
  const out: ThreadEntry[] = [];
  for (const entry of sortThreads(entries)) {
    if (seen.has(entry.id)) continue;
    seen.add(entry.id);
    out.push(entry);
    if (out.length === MAX_LISTED_THREADS) break;
  }
  return out;
}

function readEntries(raw: unknown): ThreadEntry[] {
  const entries = (raw as { entries?: unknown } | undefined)?.entries;
  return Array.isArray(entries) ? entries.filter(isEntry) : [];
}

/**
 * The default source: one record (`threads:index`) in the records storage, updated in one
 * transaction per change; `rename` and `remove` call the server with the thread's token,
 * and `remove` also deletes the chat's records of this browser.
 */
export function localThreadSource(options: LocalThreadSourceOptions): ThreadSource {
  const storage = options.storage ?? defaultStorage();
  const max = options.maxThreads ?? DEFAULT_MAX_THREADS;
  const forget = async (ids: readonly string[]) => {
    await Promise.all(
      ids.flatMap((id) => [storage.delete(chatRecordKey(id)), storage.delete(runRecordKey(id))]),
    );
  };
  const change = async (edit: (entries: ThreadEntry[]) => ThreadEntry[]) => {
    let dropped: string[] = [];
    await storage.update(THREAD_INDEX_KEY, (raw) => {
      const next = sortThreads(edit(readEntries(raw)));
      dropped = next.slice(max).map((e) => e.id);
      return { v: 1, entries: next.slice(0, max) };
    });
    if (dropped.length > 0) await forget(dropped);
  };
  return {
    list: async () => newestThreads(readEntries(await storage.get(THREAD_INDEX_KEY))),
    put: (entry) => change((entries) => [...entries.filter((e) => e.id !== entry.id), entry]),
    async rename(entry, title) {
      if (entry.threadId) await renameThread(options, entry.threadId, entry.token, title);
    },
    async remove(entry) {
      if (entry.threadId) {
        try {
          await deleteThread(options, entry.threadId, entry.token);
        } catch (error) {
          // Gone already (deleted from another device): only the local records remain.
          if (!(error instanceof ResumableError && error.code === 'thread_not_found')) throw error;
        }
      }
      await change((entries) => entries.filter((e) => e.id !== entry.id));
      await forget([entry.id]);
    },
  };
}

/** The list as `ThreadIndex.store` holds it (and `useThreads` returns it). */
export interface ThreadIndexState {
  /** Newest first. */
  threads: readonly ThreadEntry[];
  /** False until the source's list has been read once. */
  loaded: boolean;
  /** The last failed change (a rename or delete the server refused), or null. */
  error: ResumableError | null;
}

/** What a chat tells the index as it goes (`useTrackThread`). */
export type ThreadPatch = Partial<Pick<ThreadEntry, 'threadId' | 'token' | 'title'>> & {
  /** Something happened in the conversation (a prompt, a reply): it moves to the top. */
  active?: boolean;
};

/** A title from a prompt: its first line, at most 60 characters. */
export function titleFromPrompt(text: string): string | null {
  const line = text.trim().split('\n')[0]!.trim();
  if (line === '') return null;
  return line.length > MAX_PROMPT_TITLE_CHARS
    ? `${line.slice(0, MAX_PROMPT_TITLE_CHARS - 1)}…`
    : line;
}

/**
 * The conversation list without React: loads the source's entries once, applies new,
 * touch, rename and delete to the source and its own store, and keeps the tabs of this
 * origin in step (BroadcastChannel). `useThreads` adapts it.
 */
export class ThreadIndex {
  /** The list's state (zustand): subscribe to follow it. */
  readonly store: StoreApi<ThreadIndexState>;
  private readonly source: ThreadSource;
  private readonly channel: TabChannel | null;
  private loading: Promise<void> | null = null;

  /** A message from another tab was dropped already (warned once per index). */
  private warnedDrop = false;

  constructor(
    source: ThreadSource,
    private readonly env: { now(): number; randomUUID(): string } = createEnvironment(),
    channelName: string | null = 'resumable:threads',
    /** Typed warnings (another tab's message dropped). @default console.warn */
    private readonly onWarning: (warning: ResumableError) => void = (w) =>
      console.warn(`[resumable] ${w.code}: ${w.message}`),
  ) {
    this.source = source;
    this.store = createStore<ThreadIndexState>()(() => ({
      threads: [],
      loaded: false,
      error: null,
    }));
    // Another tab changed the list: apply its change. (Not a re-read: a storage that fell
    // back to memory would answer an empty list and make every conversation vanish.)
    this.channel = channelName ? createEnvironment().channel(channelName) : null;
    this.channel?.subscribe((message) => this.onTabMessage(message));
  }

  /** The list now. */
  getState(): ThreadIndexState {
    return this.store.getState();
  }

  /** The entry with `id` (the list's own id, not the server's thread id), if listed. */
  get(id: string): ThreadEntry | undefined {
    return this.getState().threads.find((t) => t.id === id);
  }

  /** Reads the list once (later calls share the first read). */
  load(): Promise<void> {
    this.loading ??= this.read();
    return this.loading;
  }

  /** Another tab's change (a tab of another version, or a script, may post anything). */
  private onTabMessage(message: unknown): void {
    const m = message as { type?: unknown; entry?: unknown; id?: unknown } | null;
    const others = (id: string) => this.getState().threads.filter((t) => t.id !== id);
    if (m?.type === 'put' && isTabEntry(m.entry)) {
      this.store.setState({ threads: newestThreads([...others(m.entry.id), m.entry]) });
    } else if (m?.type === 'remove' && isLocalId(m.id)) {
      this.store.setState({ threads: others(m.id) });
    } else if ((m?.type === 'put' || m?.type === 'remove') && !this.warnedDrop) {
      this.warnedDrop = true;
      this.onWarning(
        new ResumableError(
          'bad_request',
          `another tab's thread list ${m.type} was dropped: not an entry within bounds (ids, title ≤ ${MAX_TITLE_CHARS}); later ones are dropped without a warning`,
        ),
      );
    }
  }

  private async read(): Promise<void> {
    try {
      const listed = newestThreads(await this.source.list());
      // Entries made or learned before the list was read are kept.
      const ids = new Set(listed.map((l) => l.id));
      const mine = this.getState().threads.filter((t) => !ids.has(t.id));
      this.store.setState({ threads: newestThreads([...listed, ...mine]), loaded: true });
    } catch (error) {
      this.store.setState({ loaded: true, error: asError(error) });
    }
  }

  private async save(entry: ThreadEntry): Promise<void> {
    const others = this.getState().threads.filter((t) => t.id !== entry.id);
    this.store.setState({ threads: sortThreads([...others, entry]) });
    await this.source.put(entry);
    this.channel?.post({ type: 'put', entry });
  }

  /** A new, empty conversation at the top; resolves with its id (the chat's key). */
  async create(): Promise<string> {
    const entry: ThreadEntry = {
      id: this.env.randomUUID(),
      threadId: null,
      token: null,
      title: null,
      updatedAt: this.env.now(),
    };
    await this.save(entry);
    return entry.id;
  }

  /**
   * Records what a chat learned: its server thread and token, its title (kept once set:
   * a rename wins over the first prompt), activity. Unknown ids are added.
   */
  async touch(id: string, patch: ThreadPatch): Promise<void> {
    const old = this.get(id);
    const base: ThreadEntry = old ?? {
      id,
      threadId: null,
      token: null,
      title: null,
      updatedAt: this.env.now(),
    };
    const next: ThreadEntry = {
      ...base,
      ...(patch.threadId ? { threadId: patch.threadId } : {}),
      ...(patch.token ? { token: patch.token } : {}),
      ...(base.title === null && patch.title ? { title: patch.title } : {}),
      ...(patch.active ? { updatedAt: this.env.now() } : {}),
    };
    if (old && sameEntry(old, next)) return;
    await this.save(next);
  }

  /** Renames the conversation (on the server too, when it has a thread); blank is ignored. */
  async rename(id: string, title: string): Promise<void> {
    const entry = this.get(id);
    const trimmed = title.trim();
    if (!entry || trimmed === '') return;
    await this.change(async () => {
      await this.source.rename(entry, trimmed);
      await this.save({ ...entry, title: trimmed });
    });
  }

  /** Deletes the conversation on the server and every local record of it. */
  async remove(id: string): Promise<void> {
    const entry = this.get(id);
    if (!entry) return;
    await this.change(async () => {
      await this.source.remove(entry);
      this.store.setState({ threads: this.getState().threads.filter((t) => t.id !== id) });
      this.channel?.post({ type: 'remove', id });
    });
  }

  private async change(run: () => Promise<void>): Promise<void> {
    this.store.setState({ error: null });
    try {
      await run();
    } catch (error) {
      this.store.setState({ error: asError(error) });
      throw error;
    }
  }

  /** Stops following the other tabs. */
  dispose(): void {
    this.channel?.close();
  }
}

function sameEntry(a: ThreadEntry, b: ThreadEntry): boolean {
  return (
    a.threadId === b.threadId &&
    a.token === b.token &&
    a.title === b.title &&
    a.updatedAt === b.updatedAt
  );
}

function asError(error: unknown): ResumableError {
  return error instanceof ResumableError
    ? error
    : new ResumableError('storage_unavailable', String((error as Error)?.message ?? error));
}
