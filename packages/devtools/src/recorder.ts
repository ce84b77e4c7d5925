import type { ObservedEvent } from '@resumable/hooks/observe';
import { observeClient } from '@resumable/hooks/observe';
import { EMPTY_STATE, foldEvent } from './model/conversation.js';
import { REDRAW_MS } from './model/limits.js';
import type { DevtoolsState } from './model/views.js';

/**
 * The page's recorder: listens to every Resumable client (`observeClient`) from the moment
 * the devtools are first rendered — before the hooks' engine has loaded, so the panel,
 * which loads later, still shows the first request — and folds each event into the
 * conversations' views, bounded (`model/limits.ts`). The panel reads it through
 * `subscribe`/`getState`, redrawn at most every `REDRAW_MS`.
 */
export class DevtoolsRecorder {
  private state: DevtoolsState = EMPTY_STATE;
  private readonly listeners = new Set<() => void>();
  private stop: (() => void) | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** Starts listening (once; later calls do nothing). */
  start(): void {
    this.stop ??= observeClient((event) => this.fold(event));
  }

  /** Stops listening; what was recorded stays. */
  end(): void {
    this.stop?.();
    this.stop = null;
  }

  getState = (): DevtoolsState => this.state;

  /** Calls `listener` after changes, at most once every `REDRAW_MS`. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Forgets what was recorded (the panel's Clear); listening goes on. */
  clear(): void {
    this.state = EMPTY_STATE;
    this.notifySoon();
  }

  private fold(event: ObservedEvent): void {
    this.state = foldEvent(this.state, event);
    this.notifySoon();
  }

  private notifySoon(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const listener of [...this.listeners]) listener();
    }, REDRAW_MS);
  }
}

let pageRecorder: DevtoolsRecorder | null = null;

/** The page's recorder, started. */
export function recorder(): DevtoolsRecorder {
  pageRecorder ??= new DevtoolsRecorder();
  pageRecorder.start();
  return pageRecorder;
}
