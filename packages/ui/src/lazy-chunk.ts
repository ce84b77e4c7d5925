import { useSyncExternalStore } from 'react';

/**
 * A part of the kit that is not needed to paint a transcript and a composer (an interrupt
 * card, the inline editor, the attachment tray), fetched by a dynamic `import()` the first
 * time it is wanted. One fetch at a time; a failed fetch is forgotten, so the next time it
 * is wanted (the next mount, hover or focus) tries again.
 */
export interface Chunk<T> {
  /** Fetches it (once); resolves with the module. */
  load(): Promise<T>;
  /** Starts the fetch ahead of need (a hover, a focus); a failure is left to the next try. */
  preload(): void;
  /** The module once fetched, else null. */
  get(): T | null;
  subscribe(onLoad: () => void): () => void;
}

/** Loads nothing: for a part not wanted yet (and the no-op it unsubscribes with). */
const idle = () => () => {};

export function chunk<T>(importer: () => Promise<T>): Chunk<T> {
  let module: T | null = null;
  let pending: Promise<T> | null = null;
  const load = () =>
    (pending ??= importer().then(
      (m) => (module = m),
      (e: unknown) => {
        pending = null;
        throw e;
      },
    ));
  return {
    load,
    // A chunk that does not load leaves the fallback in place.
    preload: () => void load().catch(idle),
    get: () => module,
    // Told once, when it has loaded, unless unsubscribed by then: a part unmounted (a test's
    // page torn down) while the chunk was on its way is not told.
    subscribe(onLoad) {
      let live = true;
      load().then(() => live && onLoad(), idle);
      return () => {
        live = false;
      };
    },
  };
}

/** The server's HTML (and hydration) always shows the fallback: never the lazy part. */
const onServer = () => null;

/**
 * The chunk's module once loaded (then at once, with no fallback frame), else null: render
 * the fallback. `wanted` starts the fetch. Not React.lazy + Suspense: `renderToString`
 * turns a suspended lazy part into an error template that hydration reports as a
 * recoverable error, a lazy part that has already loaded still commits its fallback for one
 * frame, and a failed chunk would need an error boundary and could never load again.
 */
export function useChunk<T>(c: Chunk<T>, wanted = true): T | null {
  return useSyncExternalStore(wanted ? c.subscribe : idle, c.get, onServer);
}
