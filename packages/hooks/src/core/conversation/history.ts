import { isTerminalStatus } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import { DEFAULT_PAGE_SIZE } from '../base/defaults.js';
import { toResumable } from '../base/errors.js';
import type { HeldReads } from '../base/held-reads.js';
import type { RunApi } from '../net/run-api.js';
import type { ChatState } from './state.js';
import { isShownMessage } from './state.js';

/**
 * `GET /threads/:id/messages`: the newest page (`before` null) replaces the history, an
 * older one goes in front; both of the branch shown (`through`), or of the branch
 * `switchTo`, which becomes the one shown when its page arrives. A page that arrives after
 * the user moved to another branch or thread is dropped. A pinned branch the server does
 * not know (`message_not_found`) is let go: the newest is loaded instead. A failure is the
 * chat's error; the pages it has stay. A read the chat's release aborted is no error.
 */
export function loadHistoryPage(
  chat: HistoryHost,
  before: string | null,
  switchTo?: string,
): Promise<void> {
  const { store } = chat;
  if (before !== null || switchTo !== undefined) return readPage(chat, before, switchTo);
  // The newest page, asked again while it loads (a thread stream saying "history changed"
  // once per event): one read in flight, and one more after it, not one per event.
  const running = newest.get(store);
  if (running) {
    running.again = true;
    return running.done;
  }
  const entry = { again: true, done: Promise.resolve() };
  newest.set(store, entry);
  entry.done = (async () => {
    try {
      while (entry.again) {
        entry.again = false;
        await readPage(chat, null);
      }
    } finally {
      newest.delete(store);
    }
  })();
  return entry.done;
}

const newest = new WeakMap<StoreApi<ChatState>, { again: boolean; done: Promise<void> }>();

/** What reading history needs of its `ChatSession`. */
export interface HistoryHost {
  readonly store: StoreApi<ChatState>;
  readonly run: { readonly api: RunApi };
  readonly options: { readonly pageSize?: number | undefined };
  readonly reads: HeldReads;
  /** The conversation's queue: a page is an input like any other. */
  readonly conversation: { send(input: { type: 'page'; page: () => void }): void };
}

/**
 * A page of thread `threadId` (before `before`, of branch `through`) into the history — unless
 * the chat moved to another thread or branch since the read began (`start`).
 */
function showPage(
  store: StoreApi<ChatState>,
  page: { messages: readonly unknown[]; nextBefore: string | null },
  read: { threadId: string; before: string | null; start: ChatState; through: string | null },
): void {
  const { threadId, before, start, through } = read;
  const now = store.getState();
  if (now.threadId !== threadId || now.through !== start.through) {
    store.setState({ isLoadingOlder: false });
    return;
  }
  // An entry that is not a message (no id or role) is dropped, as a snapshot's is; so is
  // one already shown (an older page overlapping, a server answering the newest again).
  const shown = new Set(before === null ? [] : now.history.map((m) => m.id));
  const messages = page.messages.filter((m): m is ChatState['history'][number] => {
    if (!isShownMessage(m) || shown.has(m.id)) return false;
    shown.add(m.id);
    return true;
  });
  // An older page that brings nothing new, or whose cursor does not move older, ends
  // paging: "load older" cannot append the same page, or ask for it, again and again.
  const ended = before !== null && (messages.length === 0 || !isOlder(page.nextBefore, before));
  const nextBefore = ended ? null : page.nextBefore;
  store.setState({
    history: before === null ? messages : [...messages, ...now.history],
    nextBefore,
    hasOlder: nextBefore !== null,
    isLoadingOlder: false,
    // A switched-to branch's page holds its finished runs; those kept here may be elsewhere.
    ...(before === null && through !== null ? { through, settled: [] } : {}),
  });
}

async function readPage(
  chat: HistoryHost,
  before: string | null,
  switchTo?: string,
): Promise<void> {
  const { store, run, options } = chat;
  const start = store.getState();
  const { threadId, token } = start;
  const through = switchTo ?? start.through;
  if (!threadId) return;
  store.setState({ isLoadingOlder: true });
  try {
    const page = await chat.reads.run((signal) =>
      run.api.getThreadMessages(
        threadId,
        token,
        { before, limit: options.pageSize ?? DEFAULT_PAGE_SIZE, through },
        signal,
      ),
    );
    // Shown through the conversation's queue, in order with everything else it hears.
    let shownPage = false;
    chat.conversation.send({
      type: 'page',
      page: () => {
        shownPage = true;
        showPage(store, page, { threadId, before, start, through });
      },
    });
    // Dropped (the thread was deleted meanwhile): nothing loads any more.
    if (!shownPage) store.setState({ isLoadingOlder: false });
  } catch (error) {
    const typed = toResumable(error);
    store.setState({ isLoadingOlder: false });
    if (switchTo !== undefined) throw typed;
    if (typed.code === 'aborted') return; // the chat was let go: read again when held
    if (
      typed.code === 'message_not_found' &&
      through !== null &&
      store.getState().through === through
    ) {
      store.setState({ through: null });
      return readPage(chat, null);
    }
    store.setState({ error: typed });
  }
}

/**
 * Whether cursor `next` comes before `before`: positions on the branch (protocol.md) must
 * go down; a cursor that is not a position must at least differ.
 */
function isOlder(next: string | null, before: string): boolean {
  if (next === null) return true;
  const position = /^\d{1,15}$/;
  return position.test(next) && position.test(before)
    ? Number(next) < Number(before)
    : next !== before;
}

/** `GET /threads/:id`: the thread's newest run when it is still going, else null. */
export async function activeRunOf(
  chat: Pick<HistoryHost, 'run' | 'reads'>,
  threadId: string,
  token: string | null,
): Promise<string | null> {
  const [newest] = await chat.reads.run((signal) =>
    chat.run.api.getThread(threadId, token, signal),
  );
  return newest && !isTerminalStatus(newest.status) ? newest.runId : null;
}
