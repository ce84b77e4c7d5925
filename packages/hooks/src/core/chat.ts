import type { RunMessage } from '@resumable/protocol';
import { errorAction, isTerminalStatus, ResumableError } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import { createStore } from 'zustand/vanilla';
import { retryDelay } from './backoff.js';
import type { TabChannel } from './env.js';
import { DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS, noProgress } from './reconnect.js';
import type { RunSession, RunSessionOptions } from './session.js';
import { toResumable } from './session.js';
import type { RunSessionState } from './store.js';
import type { ChatMessage, OutboxItem } from './types.js';

export interface ChatSessionOptions extends RunSessionOptions {
  /** Join this conversation (history, and a run still going). Else a new thread on first send. */
  threadId?: string;
  /** The thread's token, when this device did not start the thread (second device). */
  token?: string;
  /** Messages per history page. @default 50 */
  pageSize?: number;
  /** Extra `RunAgentInput` fields sent with every prompt (tools, context, forwardedProps…). */
  runInput?: Record<string, unknown>;
}

/** What a chat keeps besides the run record: the thread, its capability, the outbox. */
export interface ChatRecord {
  v: 1;
  key: string;
  threadId: string | null;
  token: string | null;
  outbox: OutboxItem[];
  /** The prompt of the latest run (the server's run log may not echo it back). */
  prompt: { runId: string; message: ChatMessage } | null;
}

/** What a tab tells the others when it started a run on a key. */
interface TabRunMessage {
  type: 'run';
  key: string;
  runId: string;
  threadId: string;
  token: string | null;
  prompt: ChatMessage;
}

export const chatRecordKey = (key: string) => `chat:${key}`;

export interface ChatState {
  threadId: string | null;
  token: string | null;
  /** Older pages from `GET /threads/:id/messages`, oldest first. */
  history: readonly ChatMessage[];
  /** Runs finished on this page before the current one (prompt and reply). */
  settled: readonly ChatMessage[];
  /** The current run's prompt. */
  prompt: { runId: string; message: ChatMessage } | null;
  /** The prompt whose POST is in flight. */
  sending: OutboxItem | null;
  outbox: readonly OutboxItem[];
  nextBefore: string | null;
  hasOlder: boolean;
  isLoadingOlder: boolean;
  error: ResumableError | null;
  /** History, settled runs, the current run and the outbox, deduplicated by id. */
  messages: readonly ChatMessage[];
}

function parseChatRecord(value: unknown, key: string): ChatRecord | ResumableError | null {
  if (value === undefined || value === null) return null;
  const r = value as Partial<ChatRecord>;
  if (typeof r !== 'object' || r.v !== 1 || !Array.isArray(r.outbox)) {
    return new ResumableError('corrupt_record', `persisted chat "${key}" discarded`);
  }
  const outbox = r.outbox.filter(
    (item): item is OutboxItem =>
      typeof item === 'object' &&
      item !== null &&
      typeof item.runId === 'string' &&
      typeof item.text === 'string',
  );
  return {
    v: 1,
    key,
    threadId: typeof r.threadId === 'string' ? r.threadId : null,
    token: typeof r.token === 'string' ? r.token : null,
    outbox,
    prompt: r.prompt && typeof r.prompt.runId === 'string' ? r.prompt : null,
  };
}

/**
 * A conversation on top of one `RunSession`: history pages, the prompt outbox (persisted,
 * sent when online, never twice thanks to client-chosen run ids), joining a run another
 * tab or device started, and stop = server cancel. Framework-free.
 */
export class ChatSession {
  readonly store: StoreApi<ChatState>;
  readonly run: RunSession;
  private readonly options: ChatSessionOptions;
  private refs = 0;
  private unsubscribers: (() => void)[] = [];
  private loading: Promise<void> | null = null;
  private draining: Promise<void> | null = null;
  private disposed = false;
  private optimistic = new Map<string, ChatMessage>();
  private channel: TabChannel | null = null;
  private lastCompose: unknown[] = [];
  /** Failed sends in a row (the retry policy's attempt), and the pending retry. */
  private sendFailures = 0;
  private retryTimer: unknown;

  constructor(options: ChatSessionOptions, run: RunSession) {
    this.options = options;
    this.run = run;
    this.store = createStore<ChatState>()(() =>
      emptyChatState(options.threadId ?? null, options.token ?? null),
    );
  }

  getState(): ChatState {
    return this.store.getState();
  }

  retain(): () => void {
    this.refs++;
    const releaseRun = this.run.retain();
    if (this.refs === 1) this.activate();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      releaseRun();
      this.refs--;
      if (this.refs === 0) {
        // Same deferral as the run session: StrictMode gives it straight back.
        this.run.env.setTimeout(() => {
          if (this.refs === 0) this.deactivate();
        }, 0);
      }
    };
  }

  private activate(): void {
    const channel = this.run.env.channel(`resumable:${this.run.api.endpoint}`);
    if (channel) {
      this.channel = channel;
      const off = channel.subscribe((message) => this.onTabMessage(message));
      this.unsubscribers.push(() => {
        off();
        channel.close();
        if (this.channel === channel) this.channel = null;
      });
    }
    this.unsubscribers.push(
      this.run.store.subscribe((state, prev) => this.onRunChange(state, prev)),
      this.run.env.online.subscribe((online) => {
        if (online) void this.drain();
      }),
    );
    this.compose();
    this.loading ??= this.load().catch((error) => {
      this.store.setState({ error: toResumable(error) });
    });
  }

  private deactivate(): void {
    for (const off of this.unsubscribers.splice(0)) off();
  }

  dispose(): void {
    this.disposed = true;
    this.cancelRetry();
    this.deactivate();
  }

  private cancelRetry(): void {
    if (this.retryTimer === undefined) return;
    this.run.env.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /** Reads the chat record, then history and the thread's active run. */
  private async load(): Promise<void> {
    const key = this.options.key;
    let raw: unknown;
    try {
      raw = await this.run.storage.get(chatRecordKey(key));
    } catch {
      raw = undefined;
    }
    const record = parseChatRecord(raw, key);
    if (record instanceof ResumableError) {
      this.options.onWarning?.(record);
    } else if (record) {
      const sameThread =
        this.options.threadId === undefined || this.options.threadId === record.threadId;
      if (sameThread) {
        this.store.setState({
          threadId: record.threadId,
          token: this.options.token ?? record.token,
          outbox: record.outbox,
          prompt: record.prompt,
        });
      }
    }
    await this.run.hydrate();
    const runState = this.run.getState();
    if (this.getState().threadId === null && runState.threadId) {
      this.store.setState({ threadId: runState.threadId });
    }
    this.compose();
    const { threadId, token } = this.getState();
    if (threadId) {
      await Promise.all([this.loadPage(null), this.joinActiveRun(threadId, token)]);
    }
    void this.drain();
  }

  /** `GET /threads/:id`: a run still going (another tab, another device) is joined. */
  private async joinActiveRun(threadId: string, token: string | null): Promise<void> {
    try {
      const runs = await this.run.api.getThread(threadId, token);
      const newest = runs[0];
      if (!newest || isTerminalStatus(newest.status)) return;
      if (this.run.getState().runId === newest.runId) return;
      const prompt = this.getState().prompt;
      if (prompt && prompt.runId !== newest.runId) this.settleCurrent();
      await this.run.attach({ runId: newest.runId, threadId, token });
    } catch (error) {
      this.options.onWarning?.(toResumable(error));
    }
  }

  private async loadPage(before: string | null): Promise<void> {
    const { threadId, token } = this.getState();
    if (!threadId) return;
    this.store.setState({ isLoadingOlder: true });
    try {
      const page = await this.run.api.getThreadMessages(threadId, token, {
        before,
        limit: this.options.pageSize ?? 50,
      });
      const history =
        before === null ? page.messages : [...page.messages, ...this.getState().history];
      this.store.setState({
        history,
        nextBefore: page.nextBefore,
        hasOlder: page.nextBefore !== null,
        isLoadingOlder: false,
      });
    } catch (error) {
      this.store.setState({ isLoadingOlder: false, error: toResumable(error) });
    }
    this.compose();
  }

  // ── commands ───────────────────────────────────────────────────────────────────────────

  async loadOlder(): Promise<void> {
    const { nextBefore, isLoadingOlder } = this.getState();
    if (nextBefore === null || isLoadingOlder) return;
    await this.loadPage(nextBefore);
  }

  /**
   * Sends a prompt. Shown at once (optimistic); while offline or while a reply streams it
   * waits in the persisted outbox and goes out when it can.
   */
  async send(text: string): Promise<void> {
    const trimmed = text.trim();
    if (trimmed === '') return;
    const env = this.run.env;
    const item: OutboxItem = {
      runId: env.randomUUID(),
      text: trimmed,
      createdAt: env.now(),
      messageId: env.randomUUID(),
    };
    const { outbox, sending } = this.getState();
    // Shown as "sending" straight away when it will go out now, "queued" otherwise.
    const now = outbox.length === 0 && sending === null && env.online.get() && !this.busy();
    this.store.setState({
      outbox: [...outbox, item],
      error: null,
      ...(now ? { sending: item } : {}),
    });
    this.compose();
    await this.persist();
    await this.drain();
  }

  async stop(): Promise<void> {
    await this.run.cancel();
  }

  retry(): void {
    const { outbox } = this.getState();
    if (outbox[0]?.error) {
      const [first, ...rest] = outbox;
      const { error: _dropped, ...again } = first;
      this.store.setState({ outbox: [again, ...rest], error: null });
      this.compose();
      void this.persist().then(() => this.drain());
      return;
    }
    this.store.setState({ error: null });
    this.run.retry();
    void this.drain();
  }

  /** A new conversation: forgets the thread, the run and the outbox. */
  reset(): void {
    this.cancelRetry();
    this.sendFailures = 0;
    void this.run.clear();
    this.optimistic.clear();
    this.store.setState(emptyChatState(null, null));
    this.compose();
    void this.run.storage.delete(chatRecordKey(this.options.key)).catch(() => {});
  }

  // ── outbox ─────────────────────────────────────────────────────────────────────────────

  private busy(): boolean {
    const run = this.run.getState();
    return (
      run.runId !== null && !isTerminalStatus(run.status) && !run.stopped && run.error === null
    );
  }

  /**
   * Sends the outbox's first prompt if nothing is in flight; then the next, and so on.
   * Concurrent callers share the drain in progress (and are answered when it ends).
   */
  private drain(): Promise<void> {
    if (this.draining) return this.draining;
    const loop = async () => {
      for (let guard = 0; guard < 100 && !this.disposed; guard++) {
        const item = this.getState().outbox[0];
        if (!item || item.error || !this.run.env.online.get() || this.busy()) return;
        const sent = await this.dispatch(item);
        if (!sent) return;
      }
    };
    // `.finally` runs after this assignment even when the loop ends synchronously.
    const draining: Promise<void> = loop().finally(() => {
      if (this.draining === draining) this.draining = null;
    });
    this.draining = draining;
    return draining;
  }

  private async dispatch(item: OutboxItem): Promise<boolean> {
    const { threadId, token } = this.getState();
    const message = this.userMessage(item);
    this.settleCurrent();
    this.store.setState({ sending: item });
    this.compose();
    try {
      const started = await this.run.start({
        ...this.options.runInput,
        runId: item.runId,
        ...(threadId ? { threadId } : {}),
        token,
        messages: [{ id: message.id, role: 'user', content: item.text }],
      });
      const outbox = this.getState().outbox.filter((o) => o.runId !== item.runId);
      const { pending: _p, ...accepted } = message;
      this.sendFailures = 0;
      this.store.setState({
        threadId: started.threadId,
        token: started.token ?? token,
        outbox,
        sending: null,
        prompt: { runId: started.runId, message: accepted },
      });
      this.compose();
      await this.persist();
      this.channel?.post({
        type: 'run',
        key: this.options.key,
        runId: started.runId,
        threadId: started.threadId,
        token: started.token ?? token,
        prompt: accepted,
      } satisfies TabRunMessage);
      return true;
    } catch (error) {
      const typed = toResumable(error);
      // One decision table for every path (see ERROR_ACTIONS): only `retry` keeps the
      // prompt queued; anything else waits for the user's retry() with its error shown.
      const retryable = errorAction(typed) === 'retry';
      const outbox = this.getState().outbox.map((o) =>
        o.runId === item.runId && !retryable
          ? { ...o, error: { code: typed.code, message: typed.message } }
          : o,
      );
      this.store.setState({ sending: null, outbox, error: retryable ? null : typed });
      this.compose();
      await this.persist();
      if (!retryable) return false;
      // Stays queued; retried through the one retry policy (and at once on `online`), up
      // to the bound on answers without progress: then it waits for retry() like a refusal.
      this.sendFailures++;
      if (typed.code === 'run_in_progress' && typed.runId !== undefined && threadId) {
        // The thread already runs a reply (another tab or device): follow it. The prompt
        // goes out, once (its runId is fixed), when that run ends: the drain on its
        // terminal event, or the policy's retry below when it ended already.
        await this.follow(typed.runId, threadId, token);
      }
      const max = this.options.maxAttemptsWithoutProgress ?? DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS;
      if (this.sendFailures >= max && typed.code !== 'network') {
        const stop = noProgress(this.sendFailures, typed);
        this.sendFailures = 0;
        this.store.setState({
          error: stop,
          outbox: this.getState().outbox.map((o) =>
            o.runId === item.runId
              ? { ...o, error: { code: stop.code, message: stop.message } }
              : o,
          ),
        });
        this.compose();
        await this.persist();
        return false;
      }
      this.scheduleRetry(
        retryDelay(this.sendFailures, this.run.env.random, this.options.backoff, typed.retryAfter),
      );
      return false;
    }
  }

  private scheduleRetry(delay: number): void {
    this.cancelRetry();
    this.retryTimer = this.run.env.setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.disposed) void this.drain();
    }, delay);
  }

  /** Follows a run this client did not start (a conflict's running run). */
  private async follow(runId: string, threadId: string, token: string | null): Promise<void> {
    if (this.run.getState().runId === runId) return;
    this.settleCurrent();
    this.store.setState({ prompt: null });
    this.compose();
    await this.run.attach({ runId, threadId, token });
  }

  /**
   * Another tab on the same key started a run: follow it here too (its prompt, then the
   * reply live), so two tabs of one conversation never diverge.
   */
  private onTabMessage(message: unknown): void {
    const m = message as Partial<TabRunMessage> | null;
    if (m?.type !== 'run' || m.key !== this.options.key || typeof m.runId !== 'string') return;
    if (typeof m.threadId !== 'string' || this.run.getState().runId === m.runId) return;
    this.settleCurrent();
    const token = typeof m.token === 'string' ? m.token : this.getState().token;
    this.store.setState({
      threadId: m.threadId,
      token,
      prompt: m.prompt ? { runId: m.runId, message: m.prompt } : null,
    });
    this.compose();
    void this.run.attach({ runId: m.runId, threadId: m.threadId, token });
  }

  /** Moves the finished run's prompt and reply into `settled` before a new run starts. */
  private settleCurrent(): void {
    const run = this.run.getState();
    const { prompt, settled } = this.getState();
    const done: ChatMessage[] = [];
    if (prompt && (run.runId === null || run.runId === prompt.runId)) done.push(prompt.message);
    if (run.runId !== null) {
      // A stopped run whose cancelled end has not arrived yet: show its open messages as
      // stopped rather than streaming forever.
      const cut = run.stopped && !isTerminalStatus(run.status);
      for (const m of run.messages) {
        if (cut && m.streaming) {
          const { streaming: _open, ...rest } = m;
          done.push({ ...rest, ended: 'stopped' } as ChatMessage);
        } else {
          done.push(m);
        }
      }
    }
    if (done.length === 0 && prompt === null) return;
    this.store.setState({ settled: [...settled, ...done], prompt: null });
  }

  private userMessage(item: OutboxItem): ChatMessage {
    let message = this.optimistic.get(item.runId);
    if (!message) {
      message = {
        id: item.messageId ?? `user-${item.runId}`,
        role: 'user',
        content: item.text,
        pending: 'queued',
      } as ChatMessage;
      this.optimistic.set(item.runId, message);
    }
    return message;
  }

  private async persist(): Promise<void> {
    const { threadId, token, outbox, prompt } = this.getState();
    const record: ChatRecord = {
      v: 1,
      key: this.options.key,
      threadId,
      token,
      outbox: [...outbox],
      prompt,
    };
    try {
      await this.run.storage.update(chatRecordKey(this.options.key), () => record);
    } catch (error) {
      this.options.onWarning?.(toResumable(error));
    }
  }

  // ── composition ────────────────────────────────────────────────────────────────────────

  private onRunChange(state: RunSessionState, prev: RunSessionState): void {
    if (state.messages !== prev.messages || state.runId !== prev.runId) this.compose();
    if (isTerminalStatus(state.status) && !isTerminalStatus(prev.status)) void this.drain();
    if (state.threadId && !this.getState().threadId)
      this.store.setState({ threadId: state.threadId });
  }

  /**
   * One list for the transcript. Message objects are passed through untouched (a settled
   * reply keeps its identity while the next one streams); the list is rebuilt only when
   * one of its parts changed.
   */
  private compose(): void {
    const chat = this.getState();
    const run = this.run.getState();
    const parts = [
      chat.history,
      chat.settled,
      chat.prompt,
      chat.sending,
      chat.outbox,
      run.messages,
      run.runId,
    ];
    if (parts.every((part, i) => part === this.lastCompose[i])) return;
    this.lastCompose = parts;

    const tail: ChatMessage[] = [];
    const runMessages = run.messages as readonly RunMessage[];
    const promptInRun = chat.prompt && chat.prompt.runId === run.runId ? chat.prompt.message : null;
    if (promptInRun && !runMessages.some((m) => m.id === promptInRun.id)) tail.push(promptInRun);
    tail.push(...runMessages);
    for (const item of chat.outbox) {
      const base = this.userMessage(item);
      const pending = chat.sending?.runId === item.runId ? 'sending' : 'queued';
      if (base.pending !== pending) {
        const next = { ...base, pending } as ChatMessage;
        this.optimistic.set(item.runId, next);
        tail.push(next);
      } else {
        tail.push(base);
      }
    }
    const tailIds = new Set(tail.map((m) => m.id));
    const seen = new Set<string>();
    const messages: ChatMessage[] = [];
    for (const m of [...chat.history, ...chat.settled]) {
      if (tailIds.has(m.id) || seen.has(m.id)) continue;
      seen.add(m.id);
      messages.push(m);
    }
    for (const m of tail) {
      if (seen.has(m.id)) continue;
      seen.add(m.id);
      messages.push(m);
    }
    this.store.setState({ messages });
  }
}

/** A conversation with nothing loaded: the state at construction and after `reset()`. */
function emptyChatState(threadId: string | null, token: string | null): ChatState {
  return {
    threadId,
    token,
    history: [],
    settled: [],
    prompt: null,
    sending: null,
    outbox: [],
    nextBefore: null,
    hasOlder: false,
    isLoadingOlder: false,
    error: null,
    messages: [],
  };
}
