import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { BrowserToolRunner } from '../core/browser-tools.js';
import type { ChatSession } from '../core/chat.js';
import type { InterruptSession } from '../core/interrupt-session.js';
import type { ChatInterrupt } from '../core/interrupts.js';
import type { BrowserTools } from '../core/tool-declarations.js';
import type { InterruptControls } from '../core/types.js';

const NONE: readonly ChatInterrupt[] = [];
/** The module that holds the interrupt session and the tool runner, loaded once per page. */
const load = () => import('../interrupts.js');

/**
 * The chat's interrupts and their answers (`InterruptSession`), and the page's browser
 * tools. Both load on demand (`import()`, started at mount, beside the records' read), so
 * they are not on a chat's first-paint path.
 */
export function useInterrupts(
  chat: ChatSession,
  tools: BrowserTools | undefined,
): InterruptControls {
  const [session, setSession] = useState<InterruptSession | null>(null);
  useEffect(() => {
    let release: (() => void) | null = null;
    let gone = false;
    void load().then(({ interruptSessionOf }) => {
      if (gone) return;
      const s = interruptSessionOf(chat);
      release = s.retain();
      setSession(s);
    });
    return () => {
      gone = true;
      release?.();
    };
  }, [chat]);
  const subscribe = useCallback(
    (listener: () => void) => session?.store.subscribe(listener) ?? (() => {}),
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
    let gone = false;
    void load().then(({ browserToolRunnerOf }) => {
      if (gone) return;
      runner.current = browserToolRunnerOf(session);
      runner.current.setTools(latest.current ?? {});
      stop = runner.current.start();
    });
    return () => {
      gone = true;
      stop?.();
    };
  }, [session, hasTools]);
  useEffect(() => {
    if (tools) runner.current?.setTools(tools);
  }, [tools]);
  const resolve = useCallback(
    async (id: string, payload: unknown) =>
      (await load()).interruptSessionOf(chat).resolve(id, payload),
    [chat],
  );
  const cancel = useCallback(
    async (id: string) => (await load()).interruptSessionOf(chat).cancel(id),
    [chat],
  );
  const rerunTool = useCallback((id: string) => runner.current?.rerun(id) ?? Promise.resolve(), []);
  return useMemo(
    () => ({ interrupts, resolve, cancel, rerunTool }),
    [interrupts, resolve, cancel, rerunTool],
  );
}
