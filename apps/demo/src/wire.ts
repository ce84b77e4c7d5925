/**
 * The demo's window on the wire. It wraps `window.fetch` (before any other module runs) to
 *  - learn each run the page starts, with its thread's token (the "another device" link);
 *  - simulate going offline: `navigator.onLine` turns false, the `offline` event fires,
 *    open response streams fail the way a dropped Wi-Fi fails them, and new requests are
 *    refused until the time is up. (Chromium's own offline mode leaves open streams
 *    running, so pulling the network by hand is the only faithful way to show a drop.)
 * The client kit knows nothing of this: it sees exactly what a real network would show it.
 * What the client asked and got, and why, the devtools panel shows (@resumable/devtools).
 */

export type WireEvent =
  | { kind: 'run'; at: number; runId: string; threadId: string; token: string }
  | { kind: 'network'; at: number; online: boolean };

type Listener = (event: WireEvent) => void;

const listeners = new Set<Listener>();
const openStreams = new Set<(error: Error) => void>();
const realFetch = window.fetch.bind(window);
let simulatedOffline = false;
let offlineTimer: ReturnType<typeof setTimeout> | undefined;

function emit(event: WireEvent) {
  for (const listener of listeners) listener(event);
}

/** Subscribes to wire events; returns the unsubscribe function. */
export function onWire(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function isSimulatedOffline(): boolean {
  return simulatedOffline;
}

/** Drops the network for `seconds`, then brings it back (events `offline` / `online`). */
export function goOffline(seconds: number) {
  clearTimeout(offlineTimer);
  if (!simulatedOffline) {
    simulatedOffline = true;
    window.dispatchEvent(new Event('offline'));
    const dropped = new TypeError('network error (simulated offline)');
    for (const fail of [...openStreams]) fail(dropped);
  }
  offlineTimer = setTimeout(goOnline, seconds * 1000);
}

export function goOnline() {
  clearTimeout(offlineTimer);
  if (!simulatedOffline) return;
  simulatedOffline = false;
  window.dispatchEvent(new Event('online'));
}

function requestInfo(input: RequestInfo | URL, init?: RequestInit) {
  const url = new URL(input instanceof Request ? input.url : String(input), location.href);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  return { url, method };
}

/** Passes a response body through, letting `goOffline` cut it. */
function tapStream(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let fail: ((error: Error) => void) | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      fail = (error) => {
        openStreams.delete(fail!);
        controller.error(error);
        reader.cancel(error).catch(() => {});
      };
      openStreams.add(fail);
    },
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        if (!openStreams.has(fail!)) return;
        openStreams.delete(fail!);
        controller.error(error);
        return;
      }
      if (!openStreams.has(fail!)) return;
      if (result.done) {
        openStreams.delete(fail!);
        controller.close();
        return;
      }
      controller.enqueue(result.value);
    },
    cancel(reason) {
      openStreams.delete(fail!);
      return reader.cancel(reason);
    },
  });
}

async function tappedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const { url, method } = requestInfo(input, init);
  // The chaos panel's own calls bypass the tap: they must work while "offline".
  const isApi = url.pathname.startsWith('/api/') && !url.pathname.startsWith('/api/__chaos/');
  if (url.origin !== location.origin || !isApi) {
    return realFetch(input, init);
  }
  if (simulatedOffline) throw new TypeError('Failed to fetch (simulated offline)');
  const response = await realFetch(input, init);
  if (method === 'POST' && url.pathname.endsWith('/runs') && response.ok) {
    response
      .clone()
      .json()
      .then((run: { runId?: string; threadId?: string; token?: string }) => {
        if (run.runId && run.threadId && run.token) {
          emit({
            kind: 'run',
            at: Date.now(),
            runId: run.runId,
            threadId: run.threadId,
            token: run.token,
          });
        }
      })
      .catch(() => {});
  }
  const type = response.headers.get('content-type') ?? '';
  if (!response.body || !type.includes('text/event-stream')) return response;
  return new Response(tapStream(response.body), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

// While simulating offline, `navigator.onLine` must say so, as it would on a real drop.
const onLineDescriptor = Object.getOwnPropertyDescriptor(Navigator.prototype, 'onLine');
Object.defineProperty(navigator, 'onLine', {
  configurable: true,
  get: () => !simulatedOffline && (onLineDescriptor?.get?.call(navigator) ?? true),
});
window.fetch = tappedFetch;
window.addEventListener('online', () => emit({ kind: 'network', at: Date.now(), online: true }));
window.addEventListener('offline', () => emit({ kind: 'network', at: Date.now(), online: false }));
