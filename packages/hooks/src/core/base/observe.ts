/**
 * The client's observation point (TanStack Query's `QueryCache.subscribe` habit): what the
 * client does and why, told as events where each fact is decided — a retry and its delay in
 * the retrier, a request and its `after` in net/, a record write in records/, a phase move in
 * the run machine, an outbox move, the open interrupts. Devtools listen (`observeClient`,
 * `client/client-events.ts`, where the events are listed); nothing else need.
 *
 * Zero cost when nobody listens: a site asks `observed()` (one property read) before it
 * builds an event, and builds nothing when it is false. Nothing is buffered here: an event
 * goes to the listeners as it happens, and a listener that keeps events bounds its own
 * buffer. The listeners live on `globalThis` under a registered symbol, so a second copy of
 * this module (two bundles of the kit on one page, a hot reload) tells the same listeners.
 */

/** Which conversation an event is about: the client's endpoint and the session's key. */
export interface ObservedScope {
  /** The endpoint of the session's client, e.g. `/api`. */
  readonly endpoint: string;
  /** The session's key (`useResumableChat`'s `key`). */
  readonly key: string;
}

/** What every event carries: its kind, its conversation, when, and its place in the order. */
export interface ObservedBase extends ObservedScope {
  /** The event's kind (`phase`, `request`, `retry`…): what a listener switches on. */
  readonly type: string;
  /** When it was told (epoch ms). */
  readonly at: number;
  /** Its number in the page's order of events (1, 2, 3…; one counter for every listener). */
  readonly seq: number;
}

/** An event as a site tells it: `at` and `seq` are stamped by `notify`. */
export type Told<E extends ObservedBase> = E extends ObservedBase ? Omit<E, 'at' | 'seq'> : never;

type Listener = (event: ObservedBase) => void;

interface Hub {
  readonly listeners: Set<Listener>;
  seq: number;
  /** The page's request numbers, so a response names its request. */
  requests: number;
  /** Events built while nobody listened: a site that forgot to ask `observed()` (tests). */
  unasked: number;
}

const HUB = Symbol.for('@resumable/hooks.observers');

function hub(): Hub | undefined {
  return (globalThis as { [HUB]?: Hub })[HUB];
}

/** True while something listens: a site builds its event only then. */
export function observed(): boolean {
  return (hub()?.listeners.size ?? 0) > 0;
}

/** Tells every listener `event`, stamped; a listener that throws is reported, never rethrown. */
export function notify<E extends ObservedBase>(event: Told<E>): void {
  const h = hub();
  if (!h) return;
  if (h.listeners.size === 0) {
    h.unasked++;
    return;
  }
  const stamped = { ...event, at: Date.now(), seq: ++h.seq } as ObservedBase;
  for (const listener of [...h.listeners]) {
    try {
      listener(stamped);
    } catch (error) {
      console.error('[resumable] an observer threw', error);
    }
  }
}

/** A number for a request, so its response can name it (0 while nobody listens). */
export function requestNumber(): number {
  const h = hub();
  return h ? ++h.requests : 0;
}

/** Adds a listener (the first turns observing on); returns the unsubscribe. */
export function subscribeObserver(listener: Listener): () => void {
  const global = globalThis as { [HUB]?: Hub };
  global[HUB] ??= { listeners: new Set(), seq: 0, requests: 0, unasked: 0 };
  const h = global[HUB];
  h.listeners.add(listener);
  return () => {
    h.listeners.delete(listener);
  };
}
