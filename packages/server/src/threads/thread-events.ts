import type { Message, RunAgentInput, RunSnapshot } from '@resumable/protocol';
import { EventType, ResumableError, THREAD_EVENTS } from '@resumable/protocol';
import { MAX_QUEUED_ANNOUNCEMENTS } from '../defaults.js';
import { MemoryThreadLog } from '../stores/memory/thread-log.js';
import { withoutRunMarks } from '../stores/stored-messages.js';
import type { EventStore, ThreadLogHead, ThreadLogStore } from '../stores/types.js';
import { ThreadStreams } from '../streams/thread-streams.js';
import { Announcer } from './announcer.js';

/** `RunManager.streamCounts()`: event streams open now, and opened since start. */
export interface StreamCounts {
  /** Run event streams (`GET /runs/{id}/events`): open now, and opened since start. */
  run: { open: number; opened: number };
  /** Thread event streams (`GET /threads/{id}/events`): open now, and opened since start. */
  thread: { open: number; opened: number };
}

/**
 * The messages a run adds to its thread, as its announcement names them: the user's (and
 * system/developer) messages after the request's last assistant message — all of them
 * when the client sent only its prompt, the new turn when it sent the conversation whole.
 */
export function newMessages(messages: readonly Message[]): Message[] {
  let start = 0;
  messages.forEach((m, i) => {
    if (m.role === 'assistant') start = i + 1;
  });
  return messages.slice(start).filter((m) => m.role !== 'assistant' && m.role !== 'tool');
}

/** `history_changed {reason:"deleted"}`: nothing follows it on the thread's stream. */
function isDeletion(json: string): boolean {
  if (!json.includes('"deleted"')) return false;
  const event = JSON.parse(json) as { name?: unknown; value?: { reason?: unknown } | null };
  return event.name === THREAD_EVENTS.historyChanged && event.value?.reason === 'deleted';
}

export interface ThreadEventsOptions {
  store: EventStore;
  /** Events each thread's log keeps. */
  keep: number;
  /** How long an announcement is retried while the store fails. */
  outageMs: number;
  maxSubscribersPerThread: number;
  subscriberBufferEvents: number;
  pollMs: number;
  warn: (message: string) => void;
}

/**
 * What happens to threads, as their event streams tell it: the announcements (written in
 * order per thread, never holding up a run) and the open streams of this instance.
 */
export class ThreadEvents {
  readonly log: ThreadLogStore;
  readonly streams: ThreadStreams;
  private readonly announcer: Announcer;

  constructor(options: ThreadEventsOptions) {
    this.log = options.store.threadLog ?? new MemoryThreadLog();
    this.streams = new ThreadStreams({
      log: this.log,
      maxSubscribersPerThread: options.maxSubscribersPerThread,
      subscriberBufferEvents: options.subscriberBufferEvents,
      pollMs: options.pollMs,
      warn: options.warn,
      isLast: isDeletion,
    });
    this.announcer = new Announcer({
      log: this.log,
      keep: options.keep,
      budgetMs: options.outageMs,
      maxQueued: MAX_QUEUED_ANNOUNCEMENTS,
      onStored: (threadId, event) => this.streams.published(threadId, event),
      warn: options.warn,
    });
  }

  /**
   * Adds `{type:"CUSTOM", name, value}` to the thread's stream. Resolves its offset once
   * stored, or null when it was dropped (no such thread, or the store stayed down).
   */
  announce(threadId: string, name: string, value: unknown): Promise<number | null> {
    if (typeof name !== 'string' || name === '') {
      throw new ResumableError('bad_request', 'an announcement needs a name');
    }
    return this.announcer.announce(threadId, { type: EventType.CUSTOM, name, value });
  }

  /**
   * `resumable.run_started`: the run's id, its new messages, the message they hang under
   * in the thread's tree (`parentMessageId`, absent for a new root) and its `resume`, if any.
   */
  runStarted(input: RunAgentInput, parentMessageId: string | null): void {
    const resume = (input as { resume?: unknown }).resume;
    void this.announce(input.threadId, THREAD_EVENTS.runStarted, {
      runId: input.runId,
      messages: newMessages(input.messages).map(withoutRunMarks),
      ...(parentMessageId === null ? {} : { parentMessageId }),
      ...(resume === undefined ? {} : { resume }),
    });
  }

  /** `resumable.run_ended`, once the run's terminal event is stored. */
  runEnded(snapshot: Pick<RunSnapshot, 'runId' | 'threadId' | 'status' | 'outcome' | 'error'>) {
    const { runId, threadId, status, outcome, error } = snapshot;
    void this.announce(threadId, THREAD_EVENTS.runEnded, {
      runId,
      status,
      ...(outcome === undefined ? {} : { outcome }),
      ...(error === undefined ? {} : { error }),
    });
  }

  /**
   * After a thread's deletion: its open streams close (their clients then get `404`), and
   * this manager's own log of it (for a store without one) is dropped.
   */
  deleted(threadId: string): void {
    if (this.log instanceof MemoryThreadLog) this.log.forget(threadId);
    this.streams.drop(threadId);
  }

  head(threadId: string): Promise<ThreadLogHead> {
    return this.log.head(threadId);
  }

  /** Announcements not stored yet. */
  get pending(): number {
    return this.announcer.pending;
  }

  /** Closes the streams, then gives queued announcements up to `timeoutMs` to land. */
  async close(timeoutMs: number): Promise<void> {
    this.streams.close();
    await this.announcer.close(timeoutMs);
  }
}
