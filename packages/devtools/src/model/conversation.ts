import type { ObservedEvent, ObservedEvents } from '@resumable/hooks/observe';
import { LIMITS } from './limits.js';
import { liveText, pathOf, timelineRow } from './timeline.js';
import type {
  ConversationView,
  DevtoolsState,
  EventRow,
  RequestView,
  RunView,
  TimelineRow,
} from './views.js';
import { errorView, oneLine } from './views.js';

/**
 * The fold: each observed event replaces its conversation's view (`views.ts`) — never
 * changes it — so the panel re-renders what moved; every list keeps its last `LIMITS`.
 */

export const EMPTY_STATE: DevtoolsState = { conversations: [], told: 0 };

/** The state after `event`: its conversation's view replaced, the rest as they were. */
export function foldEvent(state: DevtoolsState, event: ObservedEvent): DevtoolsState {
  const id = `${event.endpoint} ${event.key}`;
  const index = state.conversations.findIndex((c) => c.id === id);
  const before = index === -1 ? emptyConversation(event, id) : state.conversations[index]!;
  const after = foldConversation(before, event);
  let conversations: ConversationView[];
  if (index === -1) {
    // The oldest conversation goes when the page has had too many (its chat is long gone).
    conversations = [...state.conversations, after].slice(-LIMITS.conversations);
  } else {
    conversations = [...state.conversations];
    conversations[index] = after;
  }
  return { conversations, told: state.told + 1 };
}

function emptyConversation(event: ObservedEvent, id: string): ConversationView {
  return {
    id,
    endpoint: event.endpoint,
    key: event.key,
    firstSeen: event.at,
    lastSeen: event.at,
    conversation: null,
    phase: null,
    runs: [],
    resumePoint: 0,
    lastAfter: null,
    requests: [],
    events: [],
    eventCount: 0,
    retries: [],
    storage: null,
    lastWrite: null,
    writes: 0,
    role: null,
    outbox: { items: [], sending: null, lastMove: null, at: null },
    interrupts: [],
    timeline: [],
  };
}

/** Keeps the last `limit` items of `list` with `item` added. */
function kept<T>(list: readonly T[], item: T, limit: number): readonly T[] {
  const next = [...list, item];
  return next.length > limit ? next.slice(next.length - limit) : next;
}

function foldConversation(c: ConversationView, event: ObservedEvent): ConversationView {
  const next = { ...c, lastSeen: event.at, ...factsOf(c, event) };
  const row = timelineRow(c, event);
  if (row === null) return next;
  // Consecutive live batches of one run are one growing row.
  const last = c.timeline[c.timeline.length - 1];
  if (
    row.live !== undefined &&
    last?.live === row.live &&
    last.from !== undefined &&
    last.to !== undefined &&
    row.from === last.to + 1
  ) {
    const grown: TimelineRow = {
      ...last,
      to: row.to!,
      count: (last.count ?? 0) + (row.count ?? 0),
      text: liveText(last.from, row.to!),
    };
    return { ...next, timeline: [...c.timeline.slice(0, -1), grown] };
  }
  return { ...next, timeline: kept(c.timeline, row, LIMITS.timeline) };
}

/** The facts `event` changes in conversation `c`. */
function factsOf(c: ConversationView, event: ObservedEvent): Partial<ConversationView> {
  switch (event.type) {
    case 'conversation':
      return {
        conversation: { phase: event.to, input: event.input, run: event.run, at: event.at },
      };
    case 'phase':
      return {
        phase: {
          session: event.to,
          connection: event.connection,
          event: event.event,
          error: errorView(event.error),
          attempt: event.attempt,
          nextRetryAt: event.nextRetryAt,
          at: event.at,
        },
        resumePoint: event.offset,
      };
    case 'run': {
      const run: RunView = {
        runId: event.runId,
        threadId: event.threadId,
        how: event.how,
        fromOffset: event.offset,
        at: event.at,
      };
      const others = c.runs.filter((r) => r.runId !== event.runId);
      return { runs: [run, ...others].slice(0, LIMITS.runs), resumePoint: event.offset };
    }
    case 'events':
      return eventsOf(c, event);
    case 'snapshot':
      return { resumePoint: event.offset };
    case 'role':
      return { role: { role: event.role, from: event.from, at: event.at } };
    case 'request': {
      const request: RequestView = {
        id: event.id,
        at: event.at,
        method: event.method,
        path: pathOf(event.url, event.endpoint),
        after: event.after,
        status: null,
        ms: null,
        error: null,
        end: null,
      };
      return {
        requests: kept(c.requests, request, LIMITS.requests),
        ...(event.after === null ? {} : { lastAfter: event.after }),
      };
    }
    case 'response':
      return {
        requests: c.requests.map((r) =>
          r.id === event.id
            ? { ...r, status: event.status, ms: event.ms, error: errorView(event.error) }
            : r,
        ),
      };
    case 'stream-end':
      return {
        requests: c.requests.map((r) =>
          r.id === event.id
            ? {
                ...r,
                error: r.error ?? errorView(event.error),
                end: {
                  outcome: event.outcome,
                  ms: event.ms,
                  events: event.events,
                  bytes: event.bytes,
                },
              }
            : r,
        ),
      };
    case 'retry':
      return {
        retries: kept(
          c.retries,
          {
            at: event.at,
            path: event.path,
            attempt: event.attempt,
            delay: event.delay,
            retryAfter: event.retryAfter,
            error: errorView(event.error)!,
            gaveUp: event.gaveUp,
          },
          LIMITS.retries,
        ),
      };
    case 'storage':
      return { storage: { kind: event.storage, reason: errorView(event.reason), at: event.at } };
    case 'write':
      return {
        writes: c.writes + 1,
        lastWrite: {
          at: event.at,
          runId: event.runId,
          offset: event.offset,
          kind: event.storage,
          ms: event.ms,
          error: errorView(event.error),
        },
        // A write says where records are now, even before a storage event said so.
        ...(c.storage?.kind === event.storage
          ? {}
          : { storage: { kind: event.storage, reason: c.storage?.reason ?? null, at: event.at } }),
      };
    case 'outbox':
      return {
        outbox: {
          items: event.outbox.slice(0, LIMITS.outbox).map((item) => ({
            runId: item.runId,
            kind: item.resume ? 'answers' : item.kind === 'regenerate' ? 'regenerate' : 'prompt',
            text: oneLine(item.text, 80),
            attachments: item.attachments?.length ?? 0,
            queuedAt: item.createdAt,
            error: item.error ? { code: item.error.code, message: item.error.message } : null,
          })),
          sending: event.sending,
          lastMove: event.move,
          at: event.at,
        },
      };
    case 'interrupts':
      return {
        interrupts: event.interrupts
          .map((i) => ({
            id: i.id,
            reason: i.reason,
            status: i.status,
            pending: i.pending,
            runId: i.runId,
            tool: i.tool?.name ?? null,
          }))
          .sort((a, b) => Number(b.status === 'open') - Number(a.status === 'open'))
          .slice(0, LIMITS.interrupts),
      };
  }
}

/** A batch's rows: each event with its offset, type, time since its request, a preview. */
function eventsOf(c: ConversationView, event: ObservedEvents): Partial<ConversationView> {
  const request = [...c.requests].reverse().find((r) => r.after !== null);
  const sinceRequest = request ? event.at - request.at : null;
  const batch = event.first ? 'catch-up' : 'live';
  // A replay of thousands keeps only the rows it would keep anyway.
  const fresh = event.envelopes.slice(-LIMITS.events).map((envelope) => ({
    offset: envelope.offset,
    type: envelope.event.type,
    runId: event.runId,
    at: event.at,
    sinceRequest,
    batch,
    detail: detailOf(envelope.event as unknown as Record<string, unknown>),
  })) satisfies EventRow[];
  const events = [...c.events, ...fresh];
  return {
    events: events.length > LIMITS.events ? events.slice(events.length - LIMITS.events) : events,
    eventCount: c.eventCount + event.envelopes.length,
    resumePoint: event.offset,
  };
}

/** A line about an AG-UI event: its delta, its tool, its error, its outcome. */
function detailOf(event: Record<string, unknown>): string {
  for (const field of ['delta', 'toolCallName', 'message', 'name', 'outcome', 'role']) {
    const value = event[field];
    if (typeof value === 'string') return oneLine(value, 60);
    if (value && typeof value === 'object' && 'type' in value) {
      return oneLine(String((value as { type: unknown }).type), 60);
    }
  }
  return '';
}
