/**
 * Everything the core reads from the outside world, in one injectable object — the
 * TanStack Query habit (`onlineManager` / `focusManager`): production code uses the
 * browser's, tests pass their own clock, fetch and signals and stay deterministic.
 */

/** A boolean fact that changes over time (online, page visible). */
export interface Signal {
  /** The value now. */
  get(): boolean;
  /** Calls `listener` with the new value on every change; returns the unsubscribe. */
  subscribe(listener: (value: boolean) => void): () => void;
}

/** A signal you set by hand: tests, React Native's NetInfo, an app's own heuristics. */
export interface ManualSignal extends Signal {
  /** Changes the value; the listeners hear it when it differs. */
  set(value: boolean): void;
}

/**
 * The outside world as the sessions see it: fetch, clocks, timers, randomness, the online
 * and visible signals, the tab channel and locks. `env` options replace parts of it.
 */
export interface ResumableEnvironment {
  /** @default globalThis.fetch */
  fetch: typeof fetch;
  /** Epoch milliseconds. @default Date.now */
  now(): number;
  /** @default globalThis.setTimeout */
  setTimeout(callback: () => void, ms: number): unknown;
  /** @default globalThis.clearTimeout */
  clearTimeout(handle: unknown): void;
  /** A number in [0, 1) for backoff jitter. @default Math.random */
  random(): number;
  /** Unguessable ids for client-chosen run ids. @default crypto.randomUUID */
  randomUUID(): string;
  /** `navigator.onLine` and the `online` / `offline` events. */
  online: Signal;
  /** `document.visibilityState === 'visible'` and `visibilitychange`. */
  visible: Signal;
  /**
   * Calls `listener` when the page may be about to go away (`pagehide`, or
   * `visibilitychange` to hidden): the last moment to flush a write.
   */
  onPageHide(listener: () => void): () => void;
  /**
   * Calls `listener(true)` when the page is frozen or goes into the back-forward cache
   * (`freeze`, `pagehide` with `persisted`) and `listener(false)` when it comes back
   * (`resume`, `pageshow` with `persisted`): a frozen leader tab gives its lock up.
   * @default the page's lifecycle events; never fires where there is no window
   */
  onFreeze(listener: (frozen: boolean) => void): () => void;
  /**
   * A message bus between the tabs of this origin (BroadcastChannel), so a prompt sent in
   * one tab is followed live in the others. Null where there is none.
   */
  channel(name: string): TabChannel | null;
  /**
   * The Web Locks API, with which the tabs of a conversation elect the one that holds its
   * streams. Null where there is none (then every tab keeps its own connection).
   * @default navigator.locks, or null
   */
  locks: TabLocks | null;
}

/** A message bus between the tabs of this origin (a `BroadcastChannel` of one name). */
export interface TabChannel {
  /** Sends `message` to every other tab's channel of this name (not to this one). */
  post(message: unknown): void;
  /** Calls `listener` with each message another tab posts; returns the unsubscribe. */
  subscribe(listener: (message: unknown) => void): () => void;
  /** Closes the channel: no more messages either way. */
  close(): void;
}

/** The part of the Web Locks API the tabs use (`navigator.locks`). */
export interface TabLocks {
  /** `navigator.locks.request`: runs `callback` holding the lock `name` (the Web Locks API). */
  request(
    name: string,
    options: { ifAvailable?: boolean; steal?: boolean; signal?: AbortSignal },
    callback: (lock: unknown) => Promise<unknown> | unknown,
  ): Promise<unknown>;
}

/** `navigator.locks` where the page has it (secure contexts only), else null. */
export function browserLocks(): TabLocks | null {
  const nav = (globalThis as { navigator?: { locks?: TabLocks } }).navigator;
  return nav?.locks && typeof nav.locks.request === 'function' ? nav.locks : null;
}

function broadcastChannel(name: string): TabChannel | null {
  const BC = (globalThis as { BroadcastChannel?: typeof BroadcastChannel }).BroadcastChannel;
  if (typeof BC !== 'function') return null;
  const bc = new BC(name);
  // Node keeps the process alive for an open channel; a browser ignores unref.
  (bc as { unref?: () => void }).unref?.();
  return {
    post: (message) => bc.postMessage(message),
    subscribe(listener) {
      const handler = (event: MessageEvent) => listener(event.data);
      bc.addEventListener('message', handler);
      return () => bc.removeEventListener('message', handler);
    },
    close: () => bc.close(),
  };
}

/** A signal set by hand (`set`), starting at `initial`. */
export function createManualSignal(initial = true): ManualSignal {
  let value = initial;
  const listeners = new Set<(value: boolean) => void>();
  return {
    get: () => value,
    set(next) {
      if (next === value) return;
      value = next;
      for (const listener of [...listeners]) listener(next);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

type EventHost<E = never> = {
  addEventListener(type: string, listener: (event: E) => unknown): void;
  removeEventListener(type: string, listener: (event: E) => unknown): void;
};

function host(): EventHost | undefined {
  const w = (globalThis as { window?: EventHost }).window;
  return w && typeof w.addEventListener === 'function' ? w : undefined;
}

function doc(): (EventHost & { visibilityState?: string }) | undefined {
  const d = (globalThis as { document?: EventHost & { visibilityState?: string } }).document;
  return d && typeof d.addEventListener === 'function' ? d : undefined;
}

/** Online per `navigator.onLine` (true where there is no navigator: Node, tests). */
export function browserOnlineSignal(): Signal {
  return {
    get() {
      const nav = (globalThis as { navigator?: { onLine?: unknown } }).navigator;
      return typeof nav?.onLine === 'boolean' ? nav.onLine : true;
    },
    subscribe(listener) {
      const w = host();
      if (!w) return () => {};
      const on = () => listener(true);
      const off = () => listener(false);
      w.addEventListener('online', on);
      w.addEventListener('offline', off);
      return () => {
        w.removeEventListener('online', on);
        w.removeEventListener('offline', off);
      };
    },
  };
}

/** Visible per `document.visibilityState` (true where there is no document: Node, tests). */
export function browserVisibleSignal(): Signal {
  const get = () => doc()?.visibilityState !== 'hidden';
  return {
    get,
    subscribe(listener) {
      const d = doc();
      if (!d) return () => {};
      const handler = () => listener(get());
      d.addEventListener('visibilitychange', handler);
      return () => d.removeEventListener('visibilitychange', handler);
    },
  };
}

function browserPageHide(listener: () => void): () => void {
  const w = host();
  const d = doc();
  const onHidden = () => {
    if (d?.visibilityState === 'hidden') listener();
  };
  w?.addEventListener('pagehide', listener);
  d?.addEventListener('visibilitychange', onHidden);
  return () => {
    w?.removeEventListener('pagehide', listener);
    d?.removeEventListener('visibilitychange', onHidden);
  };
}

type PageEvent = Event & { persisted?: boolean };

function browserFreeze(listener: (frozen: boolean) => void): () => void {
  const w = host();
  const d = doc();
  if (!w || !d) return () => {};
  const freeze = () => listener(true);
  const resume = () => listener(false);
  // Only a page kept in the back-forward cache comes back; any other pagehide is an unload.
  const hide = (e: PageEvent) => e.persisted && freeze();
  const show = (e: PageEvent) => e.persisted && resume();
  const on: [EventHost<PageEvent>, string, (e: PageEvent) => unknown][] = [
    [d, 'freeze', freeze],
    [d, 'resume', resume],
    [w, 'pagehide', hide],
    [w, 'pageshow', show],
  ];
  for (const [target, type, handler] of on) target.addEventListener(type, handler);
  return () => {
    for (const [target, type, handler] of on) target.removeEventListener(type, handler);
  };
}

function defaultUUID(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  // Only insecure-context pages lack randomUUID; the server rejects ids under 22 chars, and
  // 32 hex digits from Math.random are still far from guessable by a stranger.
  let id = '';
  for (let i = 0; i < 32; i++) id += Math.floor(Math.random() * 16).toString(16);
  return id;
}

/** The browser's environment, with any part replaced by `overrides`. */
export function createEnvironment(
  overrides: Partial<ResumableEnvironment> = {},
): ResumableEnvironment {
  return {
    // Looked up per call, so a fetch polyfilled or mocked after import is still used.
    fetch: (input, init) => globalThis.fetch(input, init),
    now: () => Date.now(),
    setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
    clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
    random: () => Math.random(),
    randomUUID: defaultUUID,
    online: browserOnlineSignal(),
    visible: browserVisibleSignal(),
    onPageHide: browserPageHide,
    onFreeze: browserFreeze,
    channel: broadcastChannel,
    locks: browserLocks(),
    ...overrides,
  };
}
