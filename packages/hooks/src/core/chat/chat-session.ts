import { isTerminalStatus, ResumableError } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import { createStore } from 'zustand/vanilla';
import { DEFAULT_MAX_OUTBOX, MAX_RECORDED_HISTORY } from '../base/defaults.js';
import type { TabChannel } from '../base/env.js';
import { toResumable } from '../base/errors.js';
import { HeldReads } from '../base/held-reads.js';
import { KeepAlive } from '../base/keep-alive.js';
import { SerialLoop } from '../base/serial-loop.js';
import { followAnnounced, parseTabMessage } from '../conversation/announced-runs.js';
import { activeRunOf, loadHistoryPage } from '../conversation/history.js';
import type { ConversationEffect } from '../conversation/machine.js';
import { ConversationQueue } from '../conversation/queue.js';
import { startConversation } from '../conversation/start.js';
import type { ChatHeardRun, ChatPayloads, ChatState, OutboxItem } from '../conversation/state.js';
import { emptyChatState, isBusy, settleCurrentRun } from '../conversation/state.js';
import { Retrier } from '../retry/retrier.js';
import type { RunSession } from '../run/run-session.js';
import type { RunSessionState } from '../run/session-store.js';
import { BranchView, forkedRun, pinnedParent } from './branch-view.js';
import type { ChatRecord, StoredRecords } from './chat-record.js';
import { chatRecordKey, loadChatRecord, restoredChat } from './chat-record.js';
import type { ChatFeatures } from './host.js';
import { OptimisticMessages } from './optimistic.js';
import type { ChatSessionOptions, SendOptions } from './options.js';
import type { OutboxHost } from './outbox.js';
import {
  discardOutboxItem,
  enqueueOutboxItem,
  retryOutbox,
  sendOutboxItem,
  tellOutbox,
} from './outbox.js';
import { withSendableRunIds } from './sendable-run-ids.js';

/** A chat made without its features (not through `ResumableClient`). */
const WITHOUT_FEATURES: ChatFeatures = {
  branchActions: () => Promise.reject(withoutFeature('branch actions')),
  continuationRefusal: () => Promise.reject(withoutFeature('the interrupts')),
};

function withoutFeature(what: string): ResumableError {
  return new ResumableError(
    'bad_request',
    `${what} are not loaded: make the chat with ResumableClient`,
  );
}

/**
 * A conversation on top of one `RunSession`: history pages, the prompt outbox (persisted,
 * sent when online, never twice thanks to client-chosen run ids), joining a run another
 * tab or device started, and stop = server cancel. Framework-free. Made by
 * `ResumableClient.chatSession(key)`, which gives it the features' code.
 *
 * It is the features' `ChatHost` (`host.ts`) by shape: they take it as one, which checks
 * it. Not declared with `implements`, so the host stays out of the public declarations.
 */
export class ChatSession {
  /** The conversation's state (zustand): subscribe to follow it. */
  readonly store: StoreApi<ChatState>;
  /** The session of the conversation's current run (its stream, record and connection). */
  readonly run: RunSession;
  /** The options it was made with. */
  readonly options: ChatSessionOptions;
  private readonly keepAlive: KeepAlive;
  private unsubscribers: (() => void)[] = [];
  private loading: Promise<void> | null = null;
  /** The records the first paint read (`preload`), used instead of reading them again. */
  private preloaded: Promise<StoredRecords> | null = null;
  private readonly draining = new SerialLoop();
  /** Held (`active`), let go of (`idle`), or `disposed` for good: only an active chat sends. */
  private phase: 'idle' | 'active' | 'disposed' = 'idle';
  /**
   * Read by tests: bounded by the outbox (entries leave when their run is confirmed).
   * @internal
   */
  readonly optimistic = new OptimisticMessages();
  private channel: TabChannel | null = null;
  /** The prompt POST's failures in a row and its pending retry. */
  private readonly retries: Retrier;
  /**
   * Which branch of each prompt and answer is shown (regenerate, edit, switch).
   * @internal
   */
  readonly branches = new BranchView();
  private readonly outboxHost: OutboxHost;
  /**
   * History, active-run and new-thread reads: aborted when the chat is let go.
   * @internal
   */
  readonly reads = new HeldReads();
  /**
   * The conversation's one ordered machine (`conversation/machine.ts`): which run is the
   * current one and how it is reached. Everything that can change it is an input here.
   */
  private readonly conversation: ConversationQueue<ChatPayloads>;
  /** The outbox POST the machine asked for, while it is out. */
  private posting: { runId: string; done: Promise<boolean> } | null = null;
  /** The join the machine asked for, while its snapshot loads. */
  private joining: { runId: string; done: Promise<void> } | null = null;

  /**
   * A chat on `run` (the run session of the same key). Without the features' code (which
   * `ResumableClient.chatSession` gives), `regenerate`, `edit` and `switchBranch` reject with
   * `bad_request`, and a continuation the server refused stays queued for `retry()`.
   */
  constructor(options: ChatSessionOptions, run: RunSession);
  /** @internal `ResumableClient` gives the features' code. */
  constructor(options: ChatSessionOptions, run: RunSession, features: ChatFeatures);
  constructor(
    options: ChatSessionOptions,
    run: RunSession,
    /**
     * The features' code, loaded on first use (`ResumableClient` gives it). Without it,
     * branch actions reject and a refused continuation stays queued for `retry()`.
     */
    private readonly features: ChatFeatures = WITHOUT_FEATURES,
  ) {
    this.options = options;
    this.run = run;
    this.store = createStore<ChatState>()(() =>
      emptyChatState(options.threadId ?? null, options.token ?? null),
    );
    const { scope } = run.api;
    this.retries = new Retrier(run.env, options, scope && { ...scope, path: 'outbox' });
    this.conversation = new ConversationQueue<ChatPayloads>(
      (effect) => this.perform(effect),
      (input) =>
        this.options.onWarning?.(
          new ResumableError('too_many_requests', `conversation input ${input.type} dropped`),
        ),
      (error) => this.options.onWarning?.(toResumable(error)),
      true,
      scope,
    );
    this.outboxHost = {
      store: this.store,
      run,
      optimistic: this.optimistic,
      retries: this.retries,
      features,
      runInput: options.runInput,
      key: options.key,
      channel: () => this.channel,
      compose: () => this.compose(),
      persist: () => this.persist(),
      accepted: (started) =>
        this.conversation.send({ type: 'accepted', run: { ...started, ended: false } }),
      refused: (runId, named, left) => {
        const own = named ? this.ownRun(named.runId) : false;
        this.conversation.send({ type: 'refused', runId, named: named && { ...named, own }, left });
      },
      idle: () => this.conversation.state.phase === 'idle',
      active: () => this.phase === 'active',
      drain: () => this.drain(),
      retryLater: () => void this.drain(),
      warn: (warning) => this.options.onWarning?.(warning),
    };
    // Same deferral as the run session: StrictMode gives it straight back.
    this.keepAlive = new KeepAlive({
      activate: () => this.activate(),
      deactivate: () => this.deactivate(),
      setTimeout: run.env.setTimeout,
      clearTimeout: run.env.clearTimeout,
    });
  }

  /** The conversation now. */
  getState(): ChatState {
    return this.store.getState();
  }

  /** Holds the chat and its run session; returns the matching `release` (idempotent). */
  retain(): () => void {
    const releaseRun = this.run.retain();
    const release = this.keepAlive.retain();
    return () => {
      release();
      releaseRun();
    };
  }

  private activate(): void {
    this.move('active');
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
      // The thread stream and tab leadership (conversation.ts, loaded on demand).
      startConversation({
        options: this.options,
        store: this.store,
        run: this.run,
        heard: (heard) => this.heard(heard),
        role: (owns) => this.conversation.send({ type: 'role', owns }),
        current: () => this.conversation.state.run,
        batch: (runId, fold) => this.conversation.send({ type: 'batch', runId, batch: fold }),
        reloadHistory: () => this.loadPage(null),
        deleted: () => this.conversation.send({ type: 'deleted' }),
        rejoin: (threadId, token) => this.joinActiveRun(threadId, token),
        warn: (error) => this.options.onWarning?.(error),
      }),
      this.run.store.subscribe((state, prev) => this.onRunChange(state, prev)),
      this.run.env.online.subscribe((online) => {
        if (online) void this.drain();
      }),
    );
    this.compose();
    if (this.getState().hydrated) this.conversation.send({ type: 'held' });
    // Cut short by the last release: read again; else what waited while let go goes out
    // (unless the retry policy still waits: its timer drains, and one that fired while let
    // go found nothing to do, so this drain is owed).
    if (this.reads.takeCut()) void this.readThread();
    else if (this.getState().hydrated && !this.retries.waiting()) void this.drain();
    this.loading ??= this.load().catch((error) => {
      this.store.setState({ error: toResumable(error), hydrated: true });
    });
  }

  private deactivate(): void {
    this.move('idle');
    for (const off of this.unsubscribers.splice(0)) off();
    this.reads.abort();
  }

  /** Stops for good: no more reads, sends or retries (the records stay). */
  dispose(): void {
    this.deactivate();
    this.move('disposed');
    this.retries.cancel();
  }

  /** The chat's one transition: nothing leaves `disposed`. */
  private move(to: 'idle' | 'active' | 'disposed'): void {
    if (this.phase !== 'disposed') this.phase = to;
  }

  /**
   * Hands the chat the records the first paint is reading (`first-paint.ts`), so it shows
   * the same transcript without reading them twice. Only before the chat is first held.
   * @internal
   */
  preload(records: Promise<StoredRecords>): void {
    if (this.loading !== null || this.preloaded !== null) return;
    this.preloaded = records;
    void this.run.hydrate(records.then((r) => r.run));
  }

  /** Reads the chat record, then history and the thread's active run. */
  private async load(): Promise<void> {
    const record = await (this.preloaded?.then((r) => r.chat) ??
      loadChatRecord(this.run.storage, this.options.key));
    if (record instanceof ResumableError) {
      this.options.onWarning?.(record);
    } else {
      // A stored outbox is checked before it can go out (`checked-record.ts`).
      const checked = await this.checked(record);
      const restored = restoredChat(checked, this.options);
      if (restored) this.store.setState(restored);
      if (restored?.outbox?.length) tellOutbox(this, 'restored', null);
    }
    await this.run.hydrate();
    const runState = this.run.getState();
    if (this.getState().threadId === null && runState.threadId) {
      this.store.setState({ threadId: runState.threadId, token: this.run.token });
    }
    this.compose();
    this.store.setState({ hydrated: true });
    const run = this.run.getState();
    this.conversation.send({
      type: 'loaded',
      run: run.runId === null ? null : { runId: run.runId, ended: !isBusy(run) },
    });
    await this.readThread();
  }

  /**
   * A stored chat record made safe to send before any of it goes out: its runIds mended and
   * the rest checked (resume, parent, message id), and both written back to the record
   * (`storedChecked`, a chunk loaded only for a record with an outbox). If that chunk fails
   * to load, the record goes on with its runIds mended in memory only: never lost, and never
   * a runId the server refuses on every retry.
   */
  private async checked(record: ChatRecord | null): Promise<ChatRecord | null> {
    if (!record?.outbox.length) return record;
    return import('./stored-outbox.js').then(
      (m) => m.storedChecked(record, this),
      () => withSendableRunIds(record, () => this.run.env.randomUUID()),
    );
  }

  /** The newest history page and the thread's active run, then the outbox goes out. */
  private async readThread(): Promise<void> {
    const { threadId, token } = this.getState();
    if (threadId) await Promise.all([this.loadPage(null), this.joinActiveRun(threadId, token)]);
    if (!this.retries.waiting()) void this.drain();
  }

  /** `GET /threads/:id`: a run still going (another tab, another device) is joined. */
  private async joinActiveRun(threadId: string, token: string | null): Promise<void> {
    // A read answered after the current run changed says nothing newer (`basis`).
    const basis = this.conversation.state.run;
    try {
      const runId = await activeRunOf(this, threadId, token);
      if (runId !== null) this.heard({ runId, threadId, token, ended: false, basis });
    } catch (error) {
      const typed = toResumable(error);
      if (typed.code !== 'aborted') this.options.onWarning?.(typed);
    }
  }

  /** Reads a history page (`before` null: the newest), of branch `switchTo` when given. */
  async loadPage(before: string | null, switchTo?: string): Promise<void> {
    // Its page is shown through the conversation's queue, in order with what else it hears.
    const host = {
      store: this.store,
      run: this.run,
      options: this.options,
      reads: this.reads,
      conversation: this.conversation,
    };
    await loadHistoryPage(host, before, switchTo);
    this.compose();
    if (this.getState().through !== null) await this.persist(); // the pinned branch's page
  }

  /** Reads the next older page of history (`hasOlder`), once at a time. */
  async loadOlder(): Promise<void> {
    const { nextBefore, isLoadingOlder } = this.getState();
    if (nextBefore === null || isLoadingOlder) return;
    await this.loadPage(nextBefore);
  }

  /**
   * Sends a prompt: shown at once, kept in the persisted outbox while offline or while a
   * reply streams (`too_many_requests` past `maxOutbox`). Resolves with its run id (`null`
   * for an empty prompt) once it is queued and a send tried.
   */
  async send(text: string, options: SendOptions = {}): Promise<string | null> {
    const trimmed = text.trim();
    const files = options.attachments?.length ? { attachments: options.attachments } : null;
    if (trimmed === '' && !files) return null;
    const { randomUUID, now } = this.run.env;
    return this.enqueue({
      runId: randomUUID(),
      text: trimmed,
      createdAt: now(),
      messageId: randomUUID(),
      ...files,
      ...pinnedParent(this.getState()),
    });
  }

  /**
   * Queues an outbox item: a prompt, a regenerate, an edit (its new branch is shown), or
   * (with `resume`) the continuation answering interrupts (`interrupt-session.ts`).
   * Persisted, sent when it can, once (its `runId` is fixed). Rejects with
   * `too_many_requests` when `maxOutbox` items already wait.
   */
  enqueue(item: OutboxItem): Promise<string> {
    // The thread was deleted: this starts a new conversation (a new thread on its POST).
    if (this.conversation.state.phase === 'deleted') this.conversation.send({ type: 'reset' });
    return enqueueOutboxItem(this.outboxHost, item, this.options.maxOutbox ?? DEFAULT_MAX_OUTBOX);
  }

  /**
   * Takes back a prompt that has not gone out (queued, or refused): removed from the
   * outbox and the record. False when it is unknown or its POST is in flight.
   */
  async discard(runId: string): Promise<boolean> {
    return discardOutboxItem(this.outboxHost, runId);
  }

  /** Cancels the reply that streams, on the server (what is there is kept). */
  async stop(): Promise<void> {
    await this.run.cancel();
  }

  /** Sends the outbox again now (a failed prompt's Retry), without waiting for its delay. */
  retry(): void {
    retryOutbox(this.outboxHost);
  }

  /** Makes a thread created for a first upload this chat's own (persisted). */
  async adoptThread(threadId: string, token: string): Promise<void> {
    const current = this.getState().threadId;
    if (current === threadId) return;
    if (current !== null) throw new ResumableError('bad_request', `the chat has thread ${current}`);
    this.store.setState({ threadId, token });
    await this.persist();
  }

  /** A new conversation: forgets the thread, the run and the outbox. */
  reset(): void {
    this.clear();
    this.conversation.send({ type: 'reset' });
  }

  private clear(): void {
    this.retries.reset();
    void this.run.clear();
    this.optimistic.clear();
    this.store.setState({ ...emptyChatState(null, null), hydrated: this.getState().hydrated });
    this.compose();
    void this.run.storage.delete(chatRecordKey(this.options.key)).catch(() => {});
  }

  /** Deleted elsewhere: the run stopped, every record cleared, the chat says why. */
  private threadDeleted(): void {
    this.clear();
    this.store.setState({
      error: new ResumableError('thread_not_found', 'the thread was deleted'),
    });
  }

  /**
   * Sends the outbox's first prompt when the conversation is idle (its machine decides);
   * then the next, and so on. Concurrent callers share the drain in progress (and are
   * answered when it ends).
   */
  private drain(): Promise<void> {
    return this.draining.run(() => {
      const item = this.getState().outbox[0];
      if (this.phase !== 'active' || !item || item.error || !this.run.env.online.get())
        return false;
      this.conversation.send({ type: 'send', runId: item.runId });
      const posting = this.posting;
      return posting?.runId === item.runId ? posting.done : false;
    });
  }

  /** A run heard of, however (the thread stream, another tab, a read, a POST's 409). */
  private heard(run: ChatHeardRun): void {
    this.conversation.send({ type: 'heard', run: { ...run, own: this.ownRun(run.runId) } });
  }

  /** This chat's outbox holds run `runId` (its POST, sent again, makes it current). */
  private ownRun(runId: string): boolean {
    return this.getState().outbox.some((o) => o.runId === runId);
  }

  /**
   * Follows run `runId` of the chat's thread, heard of by its caller (the AI SDK transport's
   * read of the thread's active run): resolves once it is joined — or at once when the
   * conversation does not take it (it follows that run already, or a newer one).
   */
  follow(run: { runId: string; threadId: string; token: string | null }): Promise<void> {
    this.heard({ ...run, ended: false });
    const joining = this.joining;
    return joining?.runId === run.runId ? joining.done : Promise.resolve();
  }

  /** Carries out what the conversation machine decided. */
  private perform(effect: ConversationEffect<ChatPayloads>): void {
    switch (effect.type) {
      case 'settle':
        this.settleCurrent(effect.keep);
        return;
      case 'join':
        this.join(effect.run);
        return;
      case 'own':
        void this.run.adopt(effect.run).then(() => this.open(effect.run.runId));
        return;
      case 'open':
        this.open(effect.runId);
        return;
      case 'fold':
        effect.batch();
        return;
      case 'show':
        effect.page();
        return;
      case 'post':
        this.post(effect.runId);
        return;
      case 'drain':
        void this.drain();
        return;
      case 'end':
        this.threadDeleted();
        return;
    }
  }

  /** Shows a run heard of (its prompt, its place), then joins it: snapshot, then events. */
  private join(run: ChatHeardRun): void {
    const { runId, threadId, token, shown } = run;
    this.store.setState({
      threadId,
      token,
      ...(shown?.prompt === undefined ? {} : { prompt: shown.prompt }),
      ...(shown?.regenerated === undefined ? {} : { regenerated: shown.regenerated }),
    });
    this.compose();
    const joining = {
      runId,
      done: this.run.join({ runId, threadId, token }).then(
        (ended) => this.conversation.send({ type: 'joined', runId, ended }),
        (error) => {
          this.options.onWarning?.(toResumable(error));
          this.conversation.send({ type: 'joined', runId, ended: false });
        },
      ),
    };
    this.joining = joining;
    void joining.done.finally(() => {
      if (this.joining === joining) this.joining = null;
    });
  }

  /** The run's events from the offset the session holds; over already: the machine hears so. */
  private open(runId: string): void {
    if (this.run.resume(runId)) this.conversation.send({ type: 'ended', runId });
  }

  /** POSTs the outbox item the machine chose; its answer comes back as an input. */
  private post(runId: string): void {
    const item = this.getState().outbox.find((o) => o.runId === runId);
    if (!item) {
      this.conversation.send({ type: 'refused', runId, named: null, left: true });
      return;
    }
    const posting = {
      runId,
      done: sendOutboxItem(this.outboxHost, item).finally(() => {
        if (this.posting === posting) this.posting = null;
      }),
    };
    this.posting = posting;
  }

  private onTabMessage(message: unknown): void {
    // Followed once the server knows it (a made-up one would take the chat off its run).
    const m = parseTabMessage(message, this.options.key);
    const host = { run: this.run, store: this.store, heard: (r: ChatHeardRun) => this.heard(r) };
    followAnnounced(host, m, this.options.backoff);
  }

  /**
   * Moves the finished run's prompt and reply into `settled` before a new run starts (a
   * prompt of run `keep`, the one coming, stays the current prompt).
   */
  private settleCurrent(keep?: string): void {
    if (keep !== undefined && this.getState().prompt?.runId === keep) return;
    const settled = settleCurrentRun(this.getState(), this.run.getState());
    if (settled) this.store.setState(settled);
  }

  /** Writes the chat record (outbox, thread, branch shown); a failure is a warning. */
  persist(): Promise<void> {
    return persistChatRecord(this.run.storage, this.options, this.getState());
  }

  private onRunChange(state: RunSessionState, prev: RunSessionState): void {
    if (state.messages !== prev.messages || state.runId !== prev.runId) this.compose();
    if (isTerminalStatus(state.status) && !isTerminalStatus(prev.status)) {
      if (forkedRun(this.getState(), state.runId)) void this.loadPage(null);
    }
    // Over (ended, stopped, failed): the conversation is idle again (its outbox may send).
    if (state.runId !== null && state.runId === prev.runId && isBusy(prev) && !isBusy(state)) {
      this.conversation.send({ type: 'ended', runId: state.runId });
    }
    // With its token: a thread id alone is a 401 to whoever reads the thread first.
    if (state.threadId && !this.getState().threadId)
      this.store.setState({ threadId: state.threadId, token: this.run.token });
  }

  /** The transcript (the branch shown), republished only when one of its parts changed. */
  compose(): void {
    const messages = this.branches.derive(this.optimistic, this.getState(), this.run.getState());
    if (messages !== null) this.store.setState({ messages });
  }

  /**
   * A new answer to the prompt of `messageId` (default: the last answer) beside the old one;
   * resolves with its run id.
   */
  regenerate(messageId?: string): Promise<string> {
    return this.features.branchActions().then((b) => b.regenerate(this, messageId));
  }

  /** The prompt `messageId` asked again as `content`, on a new branch; resolves with the run id. */
  edit(messageId: string, content: string): Promise<string> {
    return this.features.branchActions().then((b) => b.edit(this, messageId, content));
  }

  /** Shows sibling `index` (0-based) of `messageId` and its newest continuation. */
  switchBranch(messageId: string, index: number): Promise<void> {
    return this.features.branchActions().then((b) => b.switchBranch(this, messageId, index));
  }
}

// The chat record's write is the engine's (the first paint reads records: `chat-record.ts`).

/** What `chat:<key>` holds for a chat state. */
function chatRecordOf(key: string, state: ChatState): ChatRecord {
  const { threadId, token, outbox, prompt, through, regenerated, history } = state;
  return {
    v: 1,
    key,
    threadId,
    token,
    outbox: [...outbox],
    prompt,
    ...(through === null
      ? {}
      : { branch: { through, history: history.slice(-MAX_RECORDED_HISTORY) } }),
    ...(regenerated === null ? {} : { regenerated }),
  };
}

/** Writes `chat:<key>` for `state`; a failed write is a warning (the page keeps going). */
async function persistChatRecord(
  storage: { update(key: string, updater: (old: unknown) => unknown): Promise<void> },
  options: { key: string; onWarning?: ((warning: ResumableError) => void) | undefined },
  state: ChatState,
): Promise<void> {
  try {
    await storage.update(chatRecordKey(options.key), () => chatRecordOf(options.key, state));
  } catch (error) {
    options.onWarning?.(toResumable(error));
  }
}
