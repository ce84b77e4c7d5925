/**
 * Store changes reach React at most once an animation frame. A streamed answer changes the
 * engine's stores once a batch — a token every ~10 ms at 100 tokens/s — and each React
 * `useSyncExternalStore` notification is a synchronous render of the whole chat; a render
 * between two frames is never seen. Every listener told in a frame is told from one
 * callback, so React renders the chat's and its run's changes together, once.
 *
 * Where the page has no animation frames (a server, a worker, a hidden tab whose frames
 * are paused) a timer tells the listeners instead: nothing waits for a frame that may
 * never come.
 */

/** Longest a change waits for its frame before a timer tells it anyway, in ms. */
const FRAME_WAIT_MS = 100;

const waiting = new Set<() => void>();
let frame: number | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;

function flush(): void {
  if (frame !== null) cancelAnimationFrame(frame);
  if (timer !== null) clearTimeout(timer);
  frame = null;
  timer = null;
  const listeners = [...waiting];
  waiting.clear();
  for (const listener of listeners) listener();
}

function framesRun(): boolean {
  return (
    typeof requestAnimationFrame === 'function' &&
    typeof document !== 'undefined' &&
    document.visibilityState !== 'hidden'
  );
}

/**
 * Subscribes `listener` to `subscribe`'s changes, told at most once a frame (see above).
 * Returns the unsubscribe, which also drops a notification still waiting.
 */
export function subscribePerFrame(
  subscribe: (listener: () => void) => () => void,
  listener: () => void,
): () => void {
  const off = subscribe(() => {
    waiting.add(listener);
    if (timer !== null) return;
    timer = setTimeout(flush, framesRun() ? FRAME_WAIT_MS : 0);
    if (framesRun()) frame = requestAnimationFrame(flush);
  });
  return () => {
    off();
    waiting.delete(listener);
  };
}
