import type { ResumableEnvironment, TabLocks } from '../src/core/env.js';
import type { RecordStorage } from '../src/core/storage.js';
import { createMemoryStorage } from '../src/core/storage.js';
import { fastClient, waitFor } from './util.js';

/**
 * Tabs of one page against a test server (`url()`: the case's): clients whose fetches are
 * logged (paths without the endpoint, with the method when `withMethod`; `env` for the rest of
 * the tab's world: its channel, its visibility), kept in `clients`
 * for the file's `afterEach`; and a thread with one finished run, made by another device.
 */
export function tabClients(url: () => string, { withMethod = false } = {}) {
  const clients: { dispose(): Promise<void> }[] = [];

  function tab(
    storage: RecordStorage,
    log: string[],
    locks: TabLocks | null = null,
    env: Partial<ResumableEnvironment> = {},
  ) {
    const client = fastClient(url(), storage, {
      ...env,
      locks,
      fetch: (input, init) => {
        const path = String(input).slice(url().length);
        log.push(withMethod ? `${init?.method ?? 'GET'} ${path}` : path);
        return fetch(input, init);
      },
    });
    clients.push(client);
    return client;
  }

  /** A thread with one finished run (its stream's last offset is 2), from another device. */
  async function threadWithOneRun() {
    const first = tab(createMemoryStorage(), []).chatSession('c', {
      runInput: { forwardedProps: { script: { tokens: 3, tokensPerSecond: 200, seed: 1 } } },
    });
    first.retain();
    await first.send('hello');
    await waitFor(() => first.run.getState().status === 'finished', 'first run', 10_000);
    const { threadId, token } = first.getState();
    return { threadId: threadId!, token: token!, thread: `/threads/${threadId}` };
  }

  return { clients, tab, threadWithOneRun };
}
