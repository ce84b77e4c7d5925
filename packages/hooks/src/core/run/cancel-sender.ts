import type { ResumableError } from '@resumable/protocol';
import { errorAction } from '@resumable/protocol';
import type { ResumableEnvironment } from '../base/env.js';
import { toResumable } from '../base/errors.js';
import type { RunApi, StartedRun } from '../net/run-api.js';
import type { RetryLimits } from '../retry/retrier.js';
import { Retrier } from '../retry/retrier.js';
import type { ConnectionInfo } from './connection.js';
import type { ReconnectLoop } from './reconnect-loop.js';

export interface CancelHost {
  readonly env: ResumableEnvironment;
  readonly api: RunApi;
  readonly loop: ReconnectLoop;
  readonly options: RetryLimits;
  ids(): StartedRun | null;
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

  private async untilTaken(ids: StartedRun): Promise<void> {
    const { host } = this;
    // cancel() stopped the stream loop first; a new run, clear() or dispose bump this.
    const generation = host.loop.token;
    const current = () => host.loop.live(generation) && host.ids()?.runId === ids.runId;
    // Every failure counts toward `maxAttemptsWithoutProgress` here, network ones too: a
    // cancel that never gets through while online is asked again on `retry()` or a reload.
    const { scope } = host.api;
    const retries = new Retrier(host.env, host.options, scope && { ...scope, path: 'cancel' });
    for (;;) {
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
        if (!host.env.online.get()) return;
        const verdict = retries.failed(typed, { answered: true });
        if (!verdict.retry) {
          // A server that answers every cancel without taking it: stop asking (retry() or a
          // reload sends it again), never a request loop.
          if (verdict.error !== typed) host.setConnection({ lastError: verdict.error });
          return;
        }
        host.setConnection({
          attempt: verdict.attempt,
          nextRetryAt: host.env.now() + verdict.delay,
        });
        await host.loop.sleep(generation, verdict.delay);
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
