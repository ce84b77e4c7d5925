import type { OutboxHost } from './outbox-send.js';

/** The user's moves on the outbox (`ChatSession.discard` and `retry`), apart from sending. */

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
