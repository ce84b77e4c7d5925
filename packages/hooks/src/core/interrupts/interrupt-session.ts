import type { InterruptView, ResumableError, ResumeEntry } from '@resumable/protocol';
import type { StoreApi } from 'zustand/vanilla';
import { createStore } from 'zustand/vanilla';
import { toResumable } from '../base/errors.js';
import { KeepAlive } from '../base/keep-alive.js';
import type { ObservedBase } from '../base/observe.js';
import { notify, observed } from '../base/observe.js';
import type { ChatHost } from '../chat/host.js';
import { Retrier } from '../retry/retrier.js';
import type { ChatInterrupt, LocalAnswer } from './chat-interrupts.js';
import {
  deriveInterrupts,
  interruptsOf,
  openBatch,
  parseServerInterrupts,
  rememberInterrupts,
} from './chat-interrupts.js';
import type { InterruptRecord } from './interrupt-record.js';
import {
  answerProblem,
  answersFollowingOutbox,
  emptyInterruptRecord,
  interruptRecordKey,
  parseInterruptRecord,
  upsert,
  withoutContinuation,
  withSendableAnswers,
} from './interrupt-record.js';
import { onRefusedContinuation } from './refused-continuation.js';

/** An interrupt session's state (`InterruptSession.store`). */
export interface InterruptState {
  /** Every interrupt the chat knows of, oldest first, with what became of it. */
  interrupts: readonly ChatInterrupt[];
  /** This device's record (known interrupts, answers, browser tool marks). */
  record: InterruptRecord;
  /** The server's statuses (`GET /threads/{id}`), once read. */
  server: readonly InterruptView[];
  /** Interrupt ids whose browser tool runs in this page, or was cut by a reload. */
  executions: ReadonlyMap<string, 'running' | 'interrupted'>;
  /**
   * True once this device's record is read: before, `interrupts` is empty and an answer
   * finds nothing to answer (wait for it, as the hooks do).
   */
  hydrated: boolean;
}

/** A chat's interrupts derived again (`observeClient`): every one it knows, with its status. */
export interface ObservedInterrupts extends ObservedBase {
  /** A chat's interrupts were derived again. */
  readonly type: 'interrupts';
  /** Oldest first; `status: 'open'` ones wait for an answer. */
  readonly interrupts: readonly ChatInterrupt[];
}

/**
 * The human-in-the-loop side of one chat: derives its interrupts (`interrupts.ts`), keeps
 * this device's answers (persisted as drafts until every open interrupt of the run is
 * answered), and sends them as one continuation through the chat's outbox — so an answer
 * given offline goes out once when back online, and a reload keeps it. Framework-free.
 * One per chat: `interruptSessionOf(chat)` makes it (its constructor is internal).
 */
export class InterruptSession {
  /**
   * The chat it answers for (the chat's `ChatHost` side: its run, store and outbox).
   * @internal
   */
  readonly chat: ChatHost;
  /** The session's state (zustand): subscribe to follow it. */
  readonly store: StoreApi<InterruptState>;
  private readonly keepAlive: KeepAlive;
  private readonly retries: Retrier;
  private unsubscribers: (() => void)[] = [];
  /** Record writes and answers, one at a time (a resolve never races another). */
  private queue: Promise<void> = Promise.resolve();
  private fetching = false;
  /** The read in flight, aborted when the last holder lets go (no retry after that). */
  private reading: AbortController | null = null;
  private requeued = false;
  private lastParts: unknown[] = [];

  /** @internal Made by `interruptSessionOf`: one per chat. */
  constructor(
    chat: ChatHost,
    private readonly onWarning?: (warning: ResumableError) => void,
  ) {
    this.chat = chat;
    const key = chat.run.key;
    this.store = createStore<InterruptState>()(() => ({
      interrupts: [],
      record: emptyInterruptRecord(key),
      server: [],
      executions: new Map(),
      hydrated: false,
    }));
    // The chat's own bounds: its backoff, its attempts without progress.
    const { scope } = chat.run.api;
    this.retries = new Retrier(
      chat.run.env,
      chat.options,
      scope && { ...scope, path: 'interrupts' },
    );
    this.keepAlive = new KeepAlive({
      activate: () => this.activate(),
      deactivate: () => this.deactivate(),
      setTimeout: chat.run.env.setTimeout,
      clearTimeout: chat.run.env.clearTimeout,
    });
  }

  /** The session's state now. */
  getState(): InterruptState {
    return this.store.getState();
  }

  /**
   * Holds the session and its chat: reads the record and the server's statuses, derives
   * the interrupts and follows their sources while held. Returns the matching `release`.
   */
  retain(): () => void {
    const releaseChat = this.chat.retain();
    const release = this.keepAlive.retain();
    return () => {
      release();
      releaseChat();
    };
  }

  private activate(): void {
    this.unsubscribers.push(
      this.chat.store.subscribe((state, prev) => {
        if (state.hydrated !== prev.hydrated || state.threadId !== prev.threadId) {
          void this.refresh();
        }
        if (state.outbox !== prev.outbox || state.hydrated !== prev.hydrated) this.followOutbox();
        this.onChange();
      }),
      this.chat.run.store.subscribe((state, prev) => {
        if (state.runId !== prev.runId && this.unsettled()) void this.refresh();
        this.onChange();
      }),
      this.chat.run.env.online.subscribe((online) => {
        if (online) void this.refresh();
      }),
      onRefusedContinuation(this.chat.store, (runId, error) => this.noteRefused(runId, error)),
    );
    void this.load();
  }

  private deactivate(): void {
    for (const off of this.unsubscribers.splice(0)) off();
    this.retries.cancel();
    this.reading?.abort();
  }

  private async load(): Promise<void> {
    const key = this.chat.run.key;
    let raw: unknown;
    try {
      raw = await this.chat.run.storage.get(interruptRecordKey(key));
    } catch {
      raw = undefined;
    }
    // Its answers checked once, here (`write` merges the stored record by its shape only).
    const record = withSendableAnswers(parseInterruptRecord(raw, key), (p) => this.onWarning?.(p));
    this.store.setState({ record, hydrated: true });
    this.followOutbox();
    this.onChange();
    await this.refresh();
  }

  /**
   * Once both records are read, queued answers go under the runId of the outbox item that
   * carries them (`answersFollowingOutbox`): before the chat sends it, so it is marked sent.
   */
  private followOutbox(): void {
    const chat = this.chat.getState();
    if (!chat.hydrated || !this.getState().hydrated) return;
    const { record } = this.getState();
    const answers = answersFollowingOutbox(record.answers, chat.outbox, () =>
      this.chat.run.env.randomUUID(),
    );
    if (answers === null) return;
    this.store.setState({ record: { ...record, answers } });
    this.onChange();
    this.persistSoon({ ...record, answers });
  }

  /**
   * Answers interrupt `id` (an approval `{approved}`, a tool `{result}`, a question
   * `{answer}`). Rejects with `bad_request` for an answer the server would refuse.
   */
  resolve(id: string, payload: unknown): Promise<void> {
    return this.answer({ interruptId: id, status: 'resolved', payload });
  }

  /** Answers interrupt `id` with `cancelled` (the agent goes on without it). */
  cancel(id: string): Promise<void> {
    return this.answer({ interruptId: id, status: 'cancelled' });
  }

  /**
   * Rejects at once with the server's `bad_request` for an answer it would refuse (too big,
   * too deep, not JSON, an id it refuses, a payload not of its reason's shape): kept and
   * queued, it would be refused for good.
   */
  private answer(entry: ResumeEntry): Promise<void> {
    const reason = this.getState().interrupts.find((i) => i.id === entry.interruptId)?.reason;
    const problem = answerProblem(entry, reason);
    if (problem) return Promise.reject(problem);
    const next = this.queue.then(async () => {
      const target = this.getState().interrupts.find((i) => i.id === entry.interruptId);
      if (target?.status !== 'open' || target.pending === 'queued') return;
      const draft: LocalAnswer = { ...entry, state: 'draft', runId: null };
      let answers = upsert(this.getState().record.answers, draft);
      // The run's open interrupts (a draft leaves them open): all answered with this one?
      const batch = openBatch(this.getState().interrupts);
      const mine = new Map(answers.map((a) => [a.interruptId, a]));
      if (!batch.every((i) => mine.get(i.id)?.state === 'draft')) {
        // Kept as a draft until the others are answered too.
        await this.write({ ...this.getState().record, answers });
        return;
      }
      // All answered: one continuation, its run id fixed and persisted before it is queued,
      // so a reload in between queues the same run again (the server's idempotency). Never
      // shown as a draft first: nothing else waits.
      const runId = this.chat.run.env.randomUUID();
      for (const i of batch)
        answers = upsert(answers, { ...mine.get(i.id)!, state: 'queued', runId });
      await this.write({ ...this.getState().record, answers });
      await this.enqueue(runId);
    });
    this.queue = next.catch(() => {});
    return next;
  }

  private enqueue(runId: string): Promise<string> {
    const resume = this.getState()
      .record.answers.filter((a) => a.runId === runId)
      .map(({ interruptId, status, payload }) => ({
        interruptId,
        status,
        ...(payload === undefined ? {} : { payload }),
      }));
    if (this.chat.getState().outbox.some((o) => o.runId === runId)) return Promise.resolve(runId);
    return this.chat.enqueue({ runId, text: '', createdAt: this.chat.run.env.now(), resume });
  }

  /**
   * Persists `record`, merged with what another tab of this key wrote meanwhile; the
   * answers of `dropped` (a refused continuation's run) leave the stored record too.
   */
  private async write(record: InterruptRecord, dropped?: string): Promise<void> {
    this.store.setState({ record });
    this.onChange();
    const key = this.chat.run.key;
    try {
      await this.chat.run.storage.update(interruptRecordKey(key), (old) => {
        const read = parseInterruptRecord(old, key);
        const disk = dropped ? withoutContinuation(read, dropped) : read;
        return {
          ...record,
          known: [...rememberInterrupts(disk.known, record.known)],
          answers: record.answers.reduce(upsert, disk.answers.filter(notIn(record.answers))),
          tools: record.tools.reduce(upsert, disk.tools.filter(notIn(record.tools))),
        };
      });
    } catch (error) {
      this.onWarning?.(toResumable(error));
    }
  }

  /** Some known interrupt has no final status from the server yet (worth asking it). */
  private unsettled(): boolean {
    const final = new Set(
      this.getState()
        .server.filter((i) => i.status !== 'open')
        .map((i) => i.id),
    );
    return this.getState().interrupts.some((i) => !final.has(i.id));
  }

  /** Reads the server's statuses of the thread's interrupts; retried through the policy. */
  async refresh(): Promise<void> {
    const { threadId, token, hydrated } = this.chat.getState();
    if (!threadId || !hydrated || this.fetching || !this.getState().hydrated) return;
    this.fetching = true;
    const reading = new AbortController();
    this.reading = reading;
    try {
      const body = await this.chat.run.api.threadBody(threadId, token, reading.signal);
      this.retries.succeeded();
      this.store.setState({ server: parseServerInterrupts(body?.interrupts) });
      this.onChange();
      await this.requeue();
    } catch (error) {
      if (reading.signal.aborted) return;
      const typed = toResumable(error);
      const verdict = this.retries.failed(typed);
      if (verdict.retry) this.retries.schedule(verdict.delay, () => void this.refresh());
      // Given up (no_progress, 401/403/404): the statuses stay as read; said, not swallowed.
      else this.onWarning?.(verdict.error);
    } finally {
      this.fetching = false;
      if (this.reading === reading) this.reading = null;
    }
  }

  /**
   * After a reload, answers queued but in no outbox (the page went away between the two
   * writes) are queued again with their run id, if the server still has them open.
   */
  private async requeue(): Promise<void> {
    if (this.requeued) return;
    this.requeued = true;
    const open = new Set(
      this.getState()
        .server.filter((s) => s.status === 'open')
        .map((s) => s.id),
    );
    const runIds = new Set(
      this.getState()
        .record.answers.filter((a) => a.state === 'queued' && a.runId && open.has(a.interruptId))
        .map((a) => a.runId as string),
    );
    const inFlight = new Set(this.chat.getState().outbox.map((o) => o.runId));
    for (const runId of runIds) {
      if (!inFlight.has(runId) && this.chat.run.getState().runId !== runId)
        await this.enqueue(runId);
    }
  }

  /** Re-derives the interrupts when one of their sources changed; records what is new. */
  private onChange(): void {
    const chat = this.chat.getState();
    const run = this.chat.run.getState();
    const s = this.getState();
    const parts = [s.record, s.server, s.executions, chat.messages, run.runId, run.run.outcome];
    if (parts.every((p, i) => p === this.lastParts[i])) return;
    this.lastParts = parts;
    const interrupts = deriveInterrupts({
      known: s.record.known,
      server: s.server,
      answers: s.record.answers,
      run: { runId: run.runId, outcome: run.run.outcome, ...lastOf(run.messages) },
      messages: chat.messages,
      executions: s.executions,
    });
    // No interrupt before or after (a streamed answer's every batch): the same empty list,
    // so its readers (the UI's interrupt context) are not told of a change per token.
    if (interrupts.length > 0 || s.interrupts.length > 0) this.store.setState({ interrupts });
    const { scope } = this.chat.run.api;
    if (scope && observed())
      notify<ObservedInterrupts>({ type: 'interrupts', ...scope, interrupts });
    this.noteNew(run.run.outcome, run.runId, lastOf(run.messages).lastMessageId);
    this.noteSent(run.runId);
  }

  /** An interrupted run's interrupts join the record, so they outlive the run's record. */
  private noteNew(
    outcome: Parameters<typeof interruptsOf>[0],
    runId: string | null,
    lastMessageId: string | undefined,
  ): void {
    const record = this.getState().record;
    const known = rememberInterrupts(record.known, interruptsOf(outcome, runId, lastMessageId));
    if (known !== record.known) this.persistSoon({ ...record, known: [...known] });
  }

  /** A queued answer whose continuation the chat now follows was taken by the server. */
  private noteSent(runId: string | null): void {
    if (runId === null || this.chat.getState().outbox.some((o) => o.runId === runId)) return;
    const record = this.getState().record;
    if (!record.answers.some((a) => a.runId === runId && a.state === 'queued')) return;
    const answers = record.answers.map((a) =>
      a.runId === runId ? { ...a, state: 'sent' as const } : a,
    );
    this.persistSoon({ ...record, answers });
  }

  /**
   * A continuation the server refused for good (the outbox judged it: `refused-continuation.ts`)
   * is let go: its answers leave the record, so the interrupts are open to answer again
   * instead of `queued` for good (and queued again on every reload); the app hears the error.
   */
  private noteRefused(runId: string, error: ResumableError): void {
    const { answers } = this.getState().record;
    if (!answers.some((a) => a.runId === runId && a.state === 'queued')) return;
    const record = withoutContinuation(this.getState().record, runId);
    this.store.setState({ record });
    this.onChange();
    this.persistSoon(record, runId);
    this.onWarning?.(error);
    // Answered elsewhere, by a run the 409 did not name: the server's statuses show it.
    if (error.code === 'interrupt_answered') void this.refresh();
  }

  private persistSoon(record: InterruptRecord, dropped?: string): void {
    this.queue = this.queue.then(() => this.write(record, dropped)).catch(() => {});
  }

  /** A problem the page's app hears (`onWarning`): browser tools report through this. */
  warn(error: unknown): void {
    this.onWarning?.(toResumable(error));
  }

  /** Browser tools set their executions through this (`browser-tools.ts`). */
  setExecution(id: string, execution: 'running' | 'interrupted' | null): void {
    const executions = new Map(this.getState().executions);
    if (execution === null) executions.delete(id);
    else executions.set(id, execution);
    this.store.setState({ executions });
    this.onChange();
  }

  /** Updates the record's browser tool marks (persisted before a tool runs). */
  async markTool(interruptId: string, state: 'started' | 'done'): Promise<void> {
    const record = this.getState().record;
    await this.write({ ...record, tools: upsert(record.tools, { interruptId, state }) });
  }
}

const lastOf = (messages: readonly { id: string }[]) => {
  const last = messages.at(-1);
  return last ? { lastMessageId: last.id } : {};
};

const notIn =
  <T extends { interruptId: string }>(mine: readonly T[]) =>
  (x: T) =>
    !mine.some((m) => m.interruptId === x.interruptId);

const sessions = new WeakMap<ChatHost, InterruptSession>();

/** The interrupt session of a chat (one per chat, made on first use). */
export function interruptSessionOf(
  chat: ChatHost,
  onWarning?: (warning: ResumableError) => void,
): InterruptSession {
  let session = sessions.get(chat);
  if (!session) {
    session = new InterruptSession(chat, onWarning);
    sessions.set(chat, session);
  }
  return session;
}
