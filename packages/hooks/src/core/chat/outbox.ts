import { ResumableError } from '@resumable/protocol';
import { isBusy } from '../conversation/state.js';
import type { OutboxHost } from './outbox-send.js';
import type { OutboxItem } from './types.js';

/** The moves on the outbox (`ChatSession.enqueue`, `discard` and `retry`), apart from sending. */

/**
 * Queues `item` (persisted, then a send tried); rejects with `too_many_requests` when `max`
 * items already wait.
 */
export async function enqueueOutboxItem(
  host: OutboxHost,
  item: OutboxItem,
  max: number,
): Promise<string> {
  const { store, run } = host;
  const { outbox, sending } = store.getState();
  if (outbox.length >= max) {
    // Transient like a 429: the queue drains as replies end; the text is the caller's to keep.
    throw new ResumableError('too_many_requests', `${max} prompts are already waiting`);
  }
  // Shown as "sending" straight away when it will go out now, "queued" otherwise.
  const now =
    host.active() && !outbox.length && !sending && run.env.online.get() && !isBusy(run.getState());
  store.setState({
    outbox: [...outbox, item],
    error: null,
    through: null,
    ...(now ? { sending: item } : {}),
  });
  host.compose();
  await host.persist();
  await host.drain();
  return item.runId;
}

/**
 * Takes back a prompt that has not gone out (queued, or refused): removed from the outbox
 * and the record. False when it is unknown or its POST is in flight.
 */
export async function discardOutboxItem(host: OutboxHost, runId: string): Promise<boolean> {
  const { store } = host;
  const { outbox, sending } = store.getState();
  if (sending?.runId === runId || !outbox.some((o) => o.runId === runId)) return false;
  host.optimistic.delete(runId);
  store.setState({ outbox: store.getState().outbox.filter((o) => o.runId !== runId) });
  host.compose();
  await host.persist();
  return true;
}

/** The refused first prompt sent again (its error dropped); else the run's connection retried. */
export function retryOutbox(host: OutboxHost): void {
  const { store } = host;
  const [first, ...rest] = store.getState().outbox;
  if (first?.error) {
    const { error: _dropped, ...again } = first;
    store.setState({ outbox: [again, ...rest], error: null });
    host.compose();
    void host.persist().then(() => host.retryLater());
    return;
  }
  store.setState({ error: null });
  host.run.retry();
  host.retryLater();
}
