import { isErrorCode, isTerminalStatus, ResumableError } from '@resumable/protocol';
import type { ChatRequestOptions, ChatTransport, UIMessage, UIMessageChunk } from 'ai';
import { DEFAULT_START_TIMEOUT_MS, MAX_OWN_RUNS } from '../core/base/defaults.js';
import type { ChatSession } from '../core/chat/chat-session.js';
import type { ClientOptions } from '../core/client/resumable-client.js';
import { ResumableClient } from '../core/client/resumable-client.js';
import { parseRecord, runRecordKey } from '../core/records/run-record.js';
import type { FollowableChat } from './follow.js';
import { followSession } from './follow.js';
import { conversationOf, historyOf } from './messages.js';
import { mirrorRun } from './mirror.js';

/**
 * What `createResumableChatTransport` takes: the server (`endpoint`) or a client to share,
 * and any of the client's options (`ClientOptions`: headers, storage, retries, timeouts…),
 * which a transport made with `client` ignores (the client's own apply).
 */
export interface ResumableChatTransportOptions extends Partial<ClientOptions> {
  /** Base URL of the Resumable endpoints, e.g. `/api`. Not needed with `client`. */
  endpoint?: string;
  /**
   * Share sessions with `<ResumableProvider client>` (one connection per chat per page).
   * @default a client of its own on `endpoint`
   */
  client?: ResumableClient;
  /**
   * Extra `RunAgentInput` fields sent with every prompt (tools, context, forwardedProps…).
   * @default none
   */
  runInput?: Record<string, unknown>;
  /**
   * How long a prompt may wait for its run to start (queued offline, the POST retried)
   * before `sendMessages` fails with `timeout`. @default 120000
   */
  startTimeoutMs?: number;
}

/**
 * A `ChatTransport` for the AI SDK's `useChat` backed by Resumable's core: `useChat({ id,
 * transport, resume: true })` resumes a reply after a reload, a drop or offline from the
 * exact persisted offset (never from the first chunk), and its `stop()` cancels the run
 * on the server.
 *
 * Each `chatId` is one `ChatSession` (thread, outbox, run record in IndexedDB), kept alive
 * until `close()`. The streams it returns mirror the session's folded state (mirror.ts),
 * so after any resume `useChat`'s message equals the fold: the reply's message id is the
 * run id, and `resumeStreamIsReplay` makes `useChat` clear it before the mirror restates
 * it.
 */
export class ResumableChatTransport implements ChatTransport<UIMessage> {
  /** The resume stream restates the reply from its start (as folded, not replayed). */
  readonly resumeStreamIsReplay = true;
  /** The client its chat sessions come from: `options.client`, or one of its own. */
  readonly client: ResumableClient;
  private readonly options: ResumableChatTransportOptions;
  private readonly held = new Map<string, { chat: ChatSession; release: () => void }>();
  /** Bumped per request of a chat: an abort followed by a new request is not a stop. */
  private readonly requests = new Map<string, number>();
  /** Runs this transport's `sendMessages` started (a `follow`ed chat streams them itself). */
  private readonly own = new Set<string>();
  private closed = false;
  private readonly ownsClient: boolean;
  private disposed: Promise<void> = Promise.resolve();

  constructor(options: ResumableChatTransportOptions) {
    this.options = options;
    this.ownsClient = !options.client;
    if (options.client) this.client = options.client;
    else {
      const { endpoint, client: _c, runInput: _r, startTimeoutMs: _s, ...rest } = options;
      if (endpoint === undefined)
        throw new ResumableError('bad_request', 'endpoint or client is required');
      this.client = new ResumableClient({ ...rest, endpoint });
    }
  }

  /** The chat's session, started on first use and kept until `close()`. */
  session(chatId: string): ChatSession {
    let entry = this.held.get(chatId);
    if (!entry) {
      const overrides = this.options.runInput ? { runInput: this.options.runInput } : {};
      const chat = this.client.chatSession(chatId, overrides);
      entry = { chat, release: chat.retain() };
      this.held.set(chatId, entry);
    }
    return entry.chat;
  }

  /**
   * `useChat`'s send: the last user message's text goes to the chat's outbox (persisted,
   * sent once, also after going offline), and the reply streams once its run has started.
   * Rejects with `bad_request` for a trigger other than `submit-message` (regenerate is not
   * supported here) or a message without text, with `timeout` when the run has not started
   * within `startTimeoutMs`, or with the error the server refused the prompt with. An abort
   * (`stop()`) takes back a prompt not yet sent, and cancels a started run on the server.
   */
  async sendMessages(
    options: Parameters<ChatTransport<UIMessage>['sendMessages']>[0],
  ): Promise<ReadableStream<UIMessageChunk>> {
    const { chatId, abortSignal } = options;
    if (options.trigger !== 'submit-message') {
      throw new ResumableError(
        'bad_request',
        `${options.trigger} is not supported: send a new prompt`,
      );
    }
    const last = options.messages.at(-1);
    const text =
      last?.role === 'user'
        ? last.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')
        : '';
    if (text.trim() === '') throw new ResumableError('bad_request', 'the last message has no text');
    const request = this.nextRequest(chatId);
    const chat = this.session(chatId);
    const runId = await chat.send(text);
    if (runId === null) throw new ResumableError('bad_request', 'the last message has no text');
    this.own.add(runId);
    // Bounded: only recent runs can still be joined; the oldest is forgotten first.
    if (this.own.size > MAX_OWN_RUNS) this.own.delete(this.own.values().next().value!);
    // A stop while the prompt waits takes it back; once started, it cancels the run.
    this.cancelOnAbort(chat, chatId, request, runId, abortSignal);
    try {
      await this.untilStarted(chat, runId, abortSignal);
    } catch (error) {
      // Given up on (timeout): a prompt this call no longer answers for never goes out.
      if (!abortSignal?.aborted) await chat.discard(runId);
      throw error;
    }
    return mirrorRun(chat.run, runId);
  }

  /**
   * `useChat({ resume: true })`'s resume: the reply this device's record holds, streamed
   * from its persisted offset (restated from its start as folded: `resumeStreamIsReplay`),
   * or else the thread's run still going (another tab or device); null when there is none.
   */
  async reconnectToStream(
    options: { chatId: string; abortSignal?: AbortSignal } & ChatRequestOptions,
  ): Promise<ReadableStream<UIMessageChunk> | null> {
    const { chatId, abortSignal } = options;
    const request = this.nextRequest(chatId);
    const chat = this.session(chatId);
    await chat.run.hydrate();
    let state = chat.run.getState();
    if (state.runId === null || isTerminalStatus(state.status) || state.stopped) {
      // Nothing to resume here; another tab or device may have started a run since.
      const joined = await this.joinThreadRun(chat, abortSignal);
      if (!joined) return null;
      state = chat.run.getState();
    }
    if (abortSignal?.aborted || state.runId === null) return null;
    this.cancelOnAbort(chat, chatId, request, state.runId, abortSignal);
    return mirrorRun(chat.run, state.runId);
  }

  /**
   * The chat as `UIMessage`s for `useChat({ messages })` after a reload: the thread's
   * history from the server, then this device's last prompt and reply (the reply's id is
   * its run id, so a resume replaces it instead of adding a second one). `signal` ends the
   * history read (the stored exchange is given, as offline).
   */
  async loadMessages(chatId: string, limit = 50, signal?: AbortSignal): Promise<UIMessage[]> {
    const chat = this.session(chatId);
    await chat.run.hydrate();
    const run = chat.run.getState();
    const record = await this.readRecord(chat);
    const threadId = run.threadId;
    let history: Parameters<typeof conversationOf>[0]['history'] = [];
    if (threadId && record) {
      try {
        const page = { limit };
        const read = await chat.run.api.getThreadMessages(threadId, record.token, page, signal);
        history = historyOf(read.messages, limit);
      } catch {
        // Offline: the stored last exchange still shows.
      }
    }
    return conversationOf({ history, prompt: chat.getState().prompt?.message ?? null, run });
  }

  /**
   * Shows in `chat` (an AI SDK `Chat` made outside React, e.g. `new Chat({ id, transport
   * })`, given to `useChat({ chat })`) the runs another tab of this chat starts: their
   * prompt, then the reply streamed live. Returns the unsubscribe.
   */
  follow(chat: FollowableChat): () => void {
    return followSession(this.session(chat.id), chat, (runId) => this.own.has(runId));
  }

  /**
   * Stops every chat's session; the runs go on on the server. The AI SDK calls it from
   * `chat.dispose()`; call it before unmounting a `useChat` whose run should live on.
   */
  close(): void {
    this.closed = true;
    for (const { release } of this.held.values()) release();
    this.held.clear();
    if (this.ownsClient) this.disposed = this.client.dispose();
  }

  /** Resolves once `close()` has ended the sessions (record writes flushed). */
  closing(): Promise<void> {
    return this.disposed;
  }

  private nextRequest(chatId: string): number {
    const n = (this.requests.get(chatId) ?? 0) + 1;
    this.requests.set(chatId, n);
    return n;
  }

  /**
   * `useChat` aborts on `stop()`, and also when it unmounts (StrictMode's double mount
   * included). A stop is an abort that no new request of the same chat follows within a
   * tick: only that one cancels the run on the server.
   */
  private cancelOnAbort(
    chat: ChatSession,
    chatId: string,
    request: number,
    runId: string,
    signal?: AbortSignal,
  ): void {
    const onAbort = () => {
      chat.run.env.setTimeout(() => {
        if (this.closed || this.requests.get(chatId) !== request) return;
        void chat.discard(runId).then((discarded) => {
          if (discarded) return;
          void this.untilStarted(chat, runId).then(
            () => (chat.run.getState().runId === runId ? chat.stop() : undefined),
            () => {},
          );
        });
      }, 0);
    };
    // `send` is awaited first: an abort during it has already happened.
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  }

  /** Waits for the queued prompt's run to start: sent now, or once back online. */
  private untilStarted(chat: ChatSession, runId: string, signal?: AbortSignal): Promise<void> {
    const timeoutMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    return new Promise<void>((resolve, reject) => {
      const env = chat.run.env;
      const check = () => {
        if (chat.run.getState().runId === runId) return done();
        const item = chat.getState().outbox.find((o) => o.runId === runId);
        if (item?.error) {
          const { code, message } = item.error;
          return done(new ResumableError(isErrorCode(code) ? code : 'internal', message));
        }
        const error = chat.getState().error;
        if (!item && error) done(error);
      };
      const offs = [chat.run.store.subscribe(check), chat.store.subscribe(check)];
      const timer = env.setTimeout(
        () => done(new ResumableError('timeout', `the run did not start within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onAbort = () => done(new DOMException('aborted', 'AbortError'));
      signal?.addEventListener('abort', onAbort, { once: true });
      function done(error?: Error) {
        for (const off of offs) off();
        env.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve();
      }
      if (signal?.aborted) return onAbort();
      check();
    });
  }

  /**
   * `GET /threads/:id`: follows the thread's newest run when it is still going. `signal`
   * (the AI SDK's: `stop()`, unmount) ends the read at once.
   */
  private async joinThreadRun(chat: ChatSession, signal?: AbortSignal): Promise<boolean> {
    const threadId = chat.run.getState().threadId;
    const record = await this.readRecord(chat);
    if (!threadId || !record || signal?.aborted) return false;
    try {
      const newest = (await chat.run.api.getThread(threadId, record.token, signal))[0];
      if (!newest || isTerminalStatus(newest.status) || newest.runId === record.runId) return false;
      if (signal?.aborted) return false;
      // Through the chat's conversation, as its own joins: one join per run, never from 0.
      await chat.follow({ runId: newest.runId, threadId, token: record.token });
      return true;
    } catch {
      return false;
    }
  }

  private async readRecord(chat: ChatSession) {
    const raw = await chat.run.storage.get(runRecordKey(chat.run.key)).catch(() => undefined);
    const record = parseRecord(raw, chat.run.key);
    return record instanceof ResumableError ? null : record;
  }
}

/** `new ResumableChatTransport(options)`: the transport `useChat` takes. */
export function createResumableChatTransport(
  options: ResumableChatTransportOptions,
): ResumableChatTransport {
  return new ResumableChatTransport(options);
}
