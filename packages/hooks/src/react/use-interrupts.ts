import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { ANSWER_WAIT_MS } from '../core/base/defaults.js';
import { whileHeld } from '../core/base/when.js';
import type { ChatSession } from '../core/chat/chat-session.js';
import type { InterruptControls } from '../core/client/controller.js';
import type { BrowserToolRunner } from '../core/interrupts/browser-tools.js';
import type { ChatInterrupt } from '../core/interrupts/chat-interrupts.js';
import type { InterruptSession } from '../core/interrupts/interrupt-session.js';
import type { BrowserTools } from '../core/interrupts/tool-declarations.js';
import { subscribePerFrame } from './frame-notify.js';

const NONE: readonly ChatInterrupt[] = [];
/**
 * The module that holds the interrupt session and the tool runner, loaded once per page.
 * Browsers fetch a module again after a failed `import()` (the page went offline first), so
 * the hook tries again when the page is back online.
 */
const load = () => import('../interrupts.js');

/** Runs `attach` with the loaded module; again on each `online` event until it has. */
function whenLoaded(attach: (m: Awaited<ReturnType<typeof load>>) => void): () => void {
  let gone = false;
  const tryLoad = () =>
    void load().then(
      (m) => gone || attach(m),
      () => gone || addEventListener('online', tryLoad, { once: true }),
    );
  tryLoad();
  return () => {
    gone = true;
    removeEventListener('online', tryLoad);
  };
}
/**
 * The chat's interrupts and their answers (`InterruptSession`), and the page's browser
 * tools. Both load on demand (`import()`, started once the engine's chat is there), so
 * they are not on a chat's first-paint path. An answer given before either has loaded
 * waits for the chat, the session and its record (`withChat`), never a silent no-op.
 */
export function useInterrupts(
  chat: ChatSession | null,
  tools: BrowserTools | undefined,
  withChat: <T>(action: (chat: ChatSession) => T | Promise<T>) => Promise<T>,
): InterruptControls {
  const [session, setSession] = useState<InterruptSession | null>(null);
  useEffect(() => {
    if (!chat) return;
    let release: (() => void) | null = null;
    const stop = whenLoaded(({ interruptSessionOf }) => {
      const s = interruptSessionOf(chat);
      release = s.retain();
      setSession(s);
    });
    return () => {
      stop();
      release?.();
    };
  }, [chat]);
  const subscribe = useCallback(
    (listener: () => void) =>
      session ? subscribePerFrame((change) => session.store.subscribe(change), listener) : () => {},
    [session],
  );
  const interrupts = useSyncExternalStore(
    subscribe,
    () => session?.getState().interrupts ?? NONE,
    () => NONE,
  );
  const runner = useRef<BrowserToolRunner | null>(null);
  const latest = useRef(tools);
  latest.current = tools;
  const hasTools = tools !== undefined;
  useEffect(() => {
    if (!hasTools || !session) return;
    let stop: (() => void) | null = null;
    const forget = whenLoaded(({ browserToolRunnerOf }) => {
      runner.current = browserToolRunnerOf(session);
      runner.current.setTools(latest.current ?? {});
      stop = runner.current.start();
    });
    return () => {
      forget();
      stop?.();
    };
  }, [session, hasTools]);
  useEffect(() => {
    if (tools) runner.current?.setTools(tools);
  }, [tools]);
  /** Runs `act` on the chat's interrupt session once it has read its record. */
  const withSession = useCallback(
    <T>(act: (s: InterruptSession, m: Awaited<ReturnType<typeof load>>) => Promise<T>) =>
      withChat(async (c) => {
        const m = await load();
        const s = m.interruptSessionOf(c);
        return whileHeld(
          s,
          (state) => state.hydrated,
          ANSWER_WAIT_MS,
          () => act(s, m),
        );
      }),
    [withChat],
  );
  const resolve = useCallback(
    (id: string, payload: unknown) => withSession((s) => s.resolve(id, payload)),
    [withSession],
  );
  const cancel = useCallback((id: string) => withSession((s) => s.cancel(id)), [withSession]);
  const rerunTool = useCallback(
    (id: string) =>
      withSession((s, m) => {
        const r = m.browserToolRunnerOf(s);
        r.setTools(latest.current ?? {});
        return r.rerun(id);
      }),
    [withSession],
  );
  return useMemo(
    () => ({ interrupts, resolve, cancel, rerunTool }),
    [interrupts, resolve, cancel, rerunTool],
  );
}
