import type { ResumableError } from '@resumable/protocol';
import { messageText } from '@resumable/protocol';
import type { ManualSignal, ResumableEnvironment } from '../src/core/base/env.js';
import { createManualSignal } from '../src/core/base/env.js';
import type { ClientOptions } from '../src/core/client/resumable-client.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import type { RecordStorage } from '../src/core/records/storage.js';
import { createMemoryStorage } from '../src/core/records/storage.js';
import type { RunSessionOptions } from '../src/core/run/run-session.js';
import { RunSession } from '../src/core/run/run-session.js';

/** Polls `check` until it returns true; fails with `what` after `timeoutMs` (bounded). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

export function assistantText(messages: readonly { role: string; content?: unknown }[]): string {
  return messages
    .filter((m) => m.role === 'assistant')
    .map((m) => messageText(m))
    .join('');
}

export interface Harness {
  session: RunSession;
  release: () => void;
  warnings: ResumableError[];
  online: ManualSignal;
  visible: ManualSignal;
  storage: RecordStorage;
}

/** A retained session on `endpoint`, with its own signals, warnings list and fast backoff. */
export function openSession(
  endpoint: string,
  options: Partial<RunSessionOptions> & { storage?: RecordStorage; online?: ManualSignal } = {},
): Harness {
  const warnings: ResumableError[] = [];
  const online = options.online ?? createManualSignal(true);
  const visible = createManualSignal(true);
  const storage = options.storage ?? createMemoryStorage();
  const session = new RunSession({
    key: 'k',
    backoff: { initialMs: 5, maxMs: 20 },
    ...options,
    endpoint,
    storage,
    env: { online, visible, onPageHide: () => () => {}, ...options.env },
    onWarning: (w) => warnings.push(w),
  });
  const release = session.retain();
  return { session, release, warnings, online, visible, storage };
}

/**
 * One origin's record storage (as IndexedDB is) seen by one tab: `onRunWrite` hears every
 * write of a run record, for counting what a tab (or all of them) wrote.
 */
export function watchRunWrites(shared: RecordStorage, onRunWrite: () => void): RecordStorage {
  return {
    kind: shared.kind,
    get: (key) => shared.get(key),
    update: (key, updater) => {
      if (key.startsWith('run:')) onRunWrite();
      return shared.update(key, updater);
    },
    delete: (key) => shared.delete(key),
  };
}

/**
 * A client in this process as the core tests use it: fast backoff (5–20 ms), online and
 * visible, no page hide, warnings dropped; `env` adds to that (Web Locks, a tab channel…).
 */
export function fastClient(
  endpoint: string,
  storage: RecordStorage = createMemoryStorage(),
  env: Partial<ResumableEnvironment> = {},
): ResumableClient {
  return quietClient(endpoint, storage, { initialMs: 5, maxMs: 20 }, env);
}

/** A page's client on the real server: fast backoff, its own signals, warnings dropped. */
export function pageClient(
  endpoint: string,
  storage: RecordStorage,
  env: { fetch?: typeof fetch; online?: ManualSignal } = {},
): ResumableClient {
  return quietClient(endpoint, storage, { initialMs: 10, maxMs: 50, minMs: 10 }, env);
}

function quietClient(
  endpoint: string,
  storage: RecordStorage,
  backoff: ClientOptions['backoff'],
  env: Partial<ResumableEnvironment>,
): ResumableClient {
  return new ResumableClient({
    endpoint,
    storage,
    backoff,
    onWarning: () => {},
    env: {
      online: createManualSignal(true),
      visible: createManualSignal(true),
      onPageHide: () => () => {},
      // A key given as undefined (`{ fetch: maybe }`) keeps the default.
      ...Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
    },
  });
}
