import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useStore } from 'zustand';
import type { BrowserToolRunner, BrowserTools } from '../core/browser-tools.js';
import type { ChatSession } from '../core/chat.js';
import { interruptSessionOf } from '../core/interrupt-session.js';
import type { InterruptControls } from '../core/types.js';
import { useRetained } from './use-resumable-run.js';

/**
 * The chat's interrupts and their answers (`InterruptSession`), and the page's browser
 * tools. The tool runner is loaded on demand (`import()`): a page without `tools` never
 * downloads it.
 */
export function useInterrupts(
  chat: ChatSession,
  tools: BrowserTools | undefined,
): InterruptControls {
  const session = useMemo(() => interruptSessionOf(chat), [chat]);
  useRetained(session);
  const interrupts = useStore(session.store, (s) => s.interrupts);
  const runner = useRef<BrowserToolRunner | null>(null);
  const latest = useRef(tools);
  latest.current = tools;
  const hasTools = tools !== undefined;
  useEffect(() => {
    if (!hasTools) return;
    let stop: (() => void) | null = null;
    let gone = false;
    void import('../core/browser-tools.js').then(({ browserToolRunnerOf }) => {
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
    (id: string, payload: unknown) => session.resolve(id, payload),
    [session],
  );
  const cancel = useCallback((id: string) => session.cancel(id), [session]);
  const rerunTool = useCallback((id: string) => runner.current?.rerun(id) ?? Promise.resolve(), []);
  return useMemo(
    () => ({ interrupts, resolve, cancel, rerunTool }),
    [interrupts, resolve, cancel, rerunTool],
  );
}
