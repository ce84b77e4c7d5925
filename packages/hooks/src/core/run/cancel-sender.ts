import type { ResumableError } from '@resumable/protocol';
import { errorAction } from '@resumable/protocol';
import type { ResumableEnvironment } from '../base/env.js';
import type { ConnectionInfo } from '../chat/types.js';
import type { RunApi } from '../net/run-api.js';
import type { BackoffOptions } from '../retry/backoff.js';
import { retryDelay } from '../retry/backoff.js';
import type { Ids, ReconnectLoop } from './reconnect-loop.js';
import {
  DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS,
  noProgress,
  toResumable,
} from './reconnect-loop.js';

export interface CancelHost {
  readonly env: ResumableEnvironment;
  readonly api: RunApi;
  readonly loop: ReconnectLoop;
  readonly options: {
    backoff?: BackoffOptions | undefined;
    maxRetries?: number | undefined;
    maxAttemptsWithoutProgress?: number | undefined;
    shouldReconnect?: ((error: ResumableError, attempt: number) => boolean) | undefined;
  };
  ids(): Ids | null;
  setConnection(patch: Partial<ConnectionInfo>): void;
  warn(error: ResumableError): void;
  forget(error: ResumableError): Promise<void>;
  /** The server took the cancel: read its log to the cancelled end. */
  taken(): void;
}

/**
 * Cancel-with-retry: `POST …/cancel` until the server takes it (2xx) or no longer knows
 * the run (its own 404). Until then the UI says stopped while the run goes on on the
 * server, so a transient failure (`errorAction` says retry) is retried through the retry
 * policy, like the stream. Offline it waits for `online`; a refusal only the user can
 * change (401/403/400) or `maxRetries` / `shouldReconnect` end it until `retry()`.
 *
 * A second call while one is retrying skips its wait instead of sending another.
 */
export class CancelSender {
  private current: { runId: string; done: Promise<void> } | null = null;

  constructor(private readonly host: CancelHost) {}

  send(): Promise<void> {
    const ids = this.host.ids();
    if (ids === null) return Promise.resolve();
    if (this.current?.runId === ids.runId) {
      this.host.loop.wakeNow();
      return this.current.done;
    }
    // (A cancel still in flight for an earlier run ends on its own: it is no longer current.)
    const entry = {
      runId: ids.runId,
      done: this.untilTaken(ids).finally(() => {
        if (this.current === entry) this.current = null;
      }),
    };
    this.current = entry;
    return entry.done;
  }

  private async untilTaken(ids: Ids): Promise<void> {
    const { host } = this;
    // cancel() stopped the stream loop first; a new run, clear() or dispose bump this.
    const generation = host.loop.token;
    const current = () => host.loop.live(generation) && host.ids()?.runId === ids.runId;
    for (let failures = 1; ; failures++) {
      try {
        await host.api.cancelRun(ids.runId, ids.token);
      } catch (error) {
        const typed = toResumable(error);
        if (!current()) return;
        const action = errorAction(typed);
        if (action === 'forget' && typed.code === 'run_not_found') return host.forget(typed);
        host.setConnection({ lastError: typed, nextRetryAt: null });
        host.warn(typed);
        // Offline: the cancel goes out again on `online` (it is idempotent).
        if (!host.env.online.get() || action !== 'retry') return;
        const maxRetries = host.options.maxRetries ?? Number.POSITIVE_INFINITY;
        if (failures > maxRetries || host.options.shouldReconnect?.(typed, failures) === false)
          return;
        // A server that answers every cancel without taking it: stop asking (retry() or a
        // reload sends it again), never a request loop.
        if (
          failures >=
          (host.options.maxAttemptsWithoutProgress ?? DEFAULT_MAX_ATTEMPTS_WITHOUT_PROGRESS)
        ) {
          host.setConnection({ lastError: noProgress(failures, typed), nextRetryAt: null });
          return;
        }
        const delay = retryDelay(failures, host.env.random, host.options.backoff, typed.retryAfter);
        host.setConnection({ attempt: failures, nextRetryAt: host.env.now() + delay });
        await host.loop.sleep(generation, delay);
        if (!current()) return;
        continue;
      }
      if (!current()) return;
      host.setConnection({ attempt: 0, nextRetryAt: null });
      host.taken();
      return;
    }
  }
}
