import type {
  ConnectionPhase,
  ConversationPhase,
  SessionEvent,
  SessionPhase,
  StreamRole,
} from '@resumable/hooks/observe';

// What the devtools know, as plain data (the panel renders it, "Copy as JSON" copies it).

/**
 * What the devtools know of one conversation (one session key of one endpoint), folded from
 * the client's observed events (`observeClient`): each fact where the client decided it,
 * the lists bounded (`LIMITS`). Plain data, replaced — never changed — by `foldEvent`, so
 * the panel re-renders what moved and `JSON.stringify` copies it whole.
 */
export interface ConversationView {
  /** `endpoint key`: the conversation's identity on the page. */
  readonly id: string;
  readonly endpoint: string;
  readonly key: string;
  readonly firstSeen: number;
  readonly lastSeen: number;
  /** The conversation machine's last move (which run it shows, and why); null before one. */
  readonly conversation: ConversationStepView | null;
  /** The run machine's last move, and why; null before its first. */
  readonly phase: PhaseView | null;
  /** Runs followed, newest first. */
  readonly runs: readonly RunView[];
  /** The resume point: the highest offset folded of the current run. */
  readonly resumePoint: number;
  /** The `after=` of the last event-stream request (where the client asked to resume). */
  readonly lastAfter: number | null;
  readonly requests: readonly RequestView[];
  /** Events folded, oldest first (the last `LIMITS.events`); `eventCount` counts them all. */
  readonly events: readonly EventRow[];
  readonly eventCount: number;
  readonly retries: readonly RetryView[];
  readonly storage: StorageView | null;
  readonly lastWrite: WriteView | null;
  readonly writes: number;
  /** Who holds the conversation's streams (tab sharing); null until told. */
  readonly role: RoleView | null;
  readonly outbox: OutboxView;
  /** The chat's interrupts as last derived (open ones first). */
  readonly interrupts: readonly InterruptView[];
  readonly timeline: readonly TimelineRow[];
}

/**
 * A line of the timeline: one thing the client did, as a developer reads it (`timeline.ts`
 * writes them).
 */
export interface TimelineRow {
  /** The event's place in the page's order. */
  readonly seq: number;
  readonly at: number;
  readonly tone: 'request' | 'catch-up' | 'live' | 'ok' | 'warn' | 'info';
  readonly text: string;
  /** Live offsets of run `live` (rows of one run merge while they continue). */
  readonly live?: string;
  readonly from?: number;
  readonly to?: number;
  readonly count?: number;
}

/** A typed error as the panel shows and copies it. */
export interface ErrorView {
  readonly code: string;
  readonly message: string;
  readonly status?: number;
}

export interface ConversationStepView {
  readonly phase: ConversationPhase;
  /** The input that moved it (`heard`, `joined`, `send`, `accepted`, `ended`…). */
  readonly input: string;
  /** The run it shows after the move. */
  readonly run: string | null;
  readonly at: number;
}

export interface PhaseView {
  readonly session: SessionPhase;
  readonly connection: ConnectionPhase;
  /** The machine's event that moved it. */
  readonly event: SessionEvent;
  readonly error: ErrorView | null;
  readonly attempt: number;
  readonly nextRetryAt: number | null;
  readonly at: number;
}

export interface RunView {
  readonly runId: string;
  readonly threadId: string;
  readonly how: 'started' | 'joined' | 'restored';
  /** The resume point it started from (a restored record's offset). */
  readonly fromOffset: number;
  readonly at: number;
}

export interface RequestView {
  readonly id: number;
  readonly at: number;
  readonly method: string;
  /** The URL past the endpoint (`/runs/…/events?after=12`). */
  readonly path: string;
  readonly after: number | null;
  readonly status: number | null;
  /** To the answer's headers; null while waiting. */
  readonly ms: number | null;
  readonly error: ErrorView | null;
  /** An event stream's end: how, after how long, what it delivered. */
  readonly end: {
    readonly outcome: string;
    readonly ms: number;
    readonly events: number;
    readonly bytes: number;
  } | null;
}

export interface EventRow {
  readonly offset: number;
  /** The AG-UI event type (`TEXT_MESSAGE_CONTENT`…). */
  readonly type: string;
  readonly runId: string;
  readonly at: number;
  /** From its stream's request to its arrival (ms); null when no request was seen. */
  readonly sinceRequest: number | null;
  /** `catch-up`: in the first batch after the stream opened; `live` after it. */
  readonly batch: 'catch-up' | 'live';
  /** A short preview: a text delta, a tool's name, an error's message. */
  readonly detail: string;
}

export interface RetryView {
  readonly at: number;
  readonly path: string;
  readonly attempt: number;
  /** The wait before the next attempt (ms); null when the path gave up. */
  readonly delay: number | null;
  /** The server's `Retry-After` in seconds, as sent. */
  readonly retryAfter: number | null;
  readonly error: ErrorView;
  readonly gaveUp: 'refused' | 'limit' | null;
}

export interface StorageView {
  readonly kind: 'indexeddb' | 'memory';
  /** Why records went to memory, when they did. */
  readonly reason: ErrorView | null;
  readonly at: number;
}

export interface WriteView {
  readonly at: number;
  readonly runId: string;
  readonly offset: number;
  readonly kind: 'indexeddb' | 'memory';
  readonly ms: number;
  readonly error: ErrorView | null;
}

export interface RoleView {
  readonly role: StreamRole;
  readonly from: StreamRole;
  readonly at: number;
}

export interface OutboxView {
  readonly items: readonly OutboxEntry[];
  /** The run id whose POST is in flight. */
  readonly sending: string | null;
  /** The last move (`queued`, `sending`, `sent`, `failed`…) and when. */
  readonly lastMove: string | null;
  readonly at: number | null;
}

export interface OutboxEntry {
  readonly runId: string;
  /** `prompt`, `regenerate` or `answers` (a continuation answering interrupts). */
  readonly kind: 'prompt' | 'regenerate' | 'answers';
  /** The prompt's text, cut to a line. */
  readonly text: string;
  readonly attachments: number;
  readonly queuedAt: number;
  readonly error: ErrorView | null;
}

export interface InterruptView {
  readonly id: string;
  readonly reason: string;
  readonly status: string;
  readonly pending: 'draft' | 'queued' | null;
  readonly runId: string;
  readonly tool: string | null;
}

/** Every conversation the page's clients told of, in the order they were first seen. */
export interface DevtoolsState {
  readonly conversations: readonly ConversationView[];
  /** Events folded since the recorder started (all conversations). */
  readonly told: number;
}

/** A typed error as the client tells it (`ResumableError`: its code, words and status). */
export interface TypedError {
  readonly code: string;
  readonly message: string;
  readonly status?: number | undefined;
}

export function errorView(error: TypedError | null | undefined): ErrorView | null {
  if (!error) return null;
  return {
    code: error.code,
    message: error.message,
    ...(error.status === undefined ? {} : { status: error.status }),
  };
}

/** `text` on one line, cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
