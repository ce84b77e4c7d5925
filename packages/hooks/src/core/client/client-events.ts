import type { ObservedBase } from '../base/observe.js';
import { subscribeObserver } from '../base/observe.js';
import type { ObservedOutbox } from '../chat/outbox.js';
import type { ObservedConversation } from '../conversation/queue.js';
import type { ObservedInterrupts } from '../interrupts/interrupt-session.js';
import type { ObservedStreamEnd } from '../net/event-stream.js';
import type { ObservedRequest, ObservedResponse } from '../net/http.js';
import type { ObservedWrite } from '../records/record-writer.js';
import type { ObservedStorage } from '../records/storage-watch.js';
import type { ObservedRetry } from '../retry/retrier.js';
import type {
  ObservedEvents,
  ObservedPhase,
  ObservedRun,
  ObservedSnapshot,
} from '../run/followed-run.js';
import type { ObservedRole } from '../run/shared-stream.js';

/**
 * Everything the client tells its observers, each told by the code that decides it:
 *
 * | event        | told by                     | what                                                |
 * | ------------ | --------------------------- | --------------------------------------------------- |
 * | `conversation` | `conversation/queue.ts`   | a step of the conversation machine that moved it    |
 * | `phase`      | `run/followed-run.ts`       | a move of the run machine, its event and its error  |
 * | `run`        | `run/followed-run.ts`       | a run followed: started, joined, restored           |
 * | `events`     | `run/followed-run.ts`       | a batch folded: the envelopes, the point after it   |
 * | `snapshot`   | `run/followed-run.ts`       | the server's snapshot replaced the state            |
 * | `role`       | `run/shared-stream.ts`      | which tab holds the conversation's streams          |
 * | `request`    | `net/http.ts`               | a request going out (an event stream's `after`)     |
 * | `response`   | `net/http.ts`               | its status and time, or its failure                 |
 * | `stream-end` | `net/event-stream.ts`       | how an event stream ended, events and bytes read    |
 * | `retry`      | `retry/retrier.ts`          | a failure judged: the delay and `Retry-After`       |
 * | `storage`    | `records/storage-watch.ts`  | where records live, and a fallback to memory        |
 * | `write`      | `records/record-writer.ts`  | a run record written: the point, where, how long    |
 * | `outbox`     | `chat/outbox.ts`            | an outbox move and what waits after it              |
 * | `interrupts` | `interrupts/interrupt-session.ts` | the chat's interrupts derived again           |
 */
export type ObservedEvent =
  | ObservedConversation
  | ObservedPhase
  | ObservedRun
  | ObservedEvents
  | ObservedSnapshot
  | ObservedRole
  | ObservedRequest
  | ObservedResponse
  | ObservedStreamEnd
  | ObservedRetry
  | ObservedStorage
  | ObservedWrite
  | ObservedOutbox
  | ObservedInterrupts;

/**
 * Listens to what every Resumable client of the page does and why (devtools; TanStack
 * Query's `QueryCache.subscribe` habit): each `ObservedEvent` as it happens, synchronously,
 * in order (`seq`). Returns the unsubscribe.
 *
 * Costs nothing while nobody listens: the client builds no event then. A listener runs on
 * the client's own paths (a batch of a stream, a retry's verdict): keep it short, keep
 * what it holds bounded, and treat the events as read-only (`events` carries the folded
 * batch itself, not a copy). A listener that throws is reported with `console.error` and
 * changes nothing in the client.
 */
export function observeClient(listener: (event: ObservedEvent) => void): () => void {
  return subscribeObserver(listener as (event: ObservedBase) => void);
}
