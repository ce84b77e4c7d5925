import type { ResumableError } from '@resumable/protocol';
import { messageText } from '@resumable/protocol';
import type { ManualSignal } from '../src/core/env.js';
import { createManualSignal } from '../src/core/env.js';
import { ResumableClient } from '../src/core/registry.js';
import type { RunSessionOptions } from '../src/core/session.js';
import { RunSession } from '../src/core/session.js';
import type { RecordStorage } from '../src/core/storage.js';
import { createMemoryStorage } from '../src/core/storage.js';

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

/** A page's client on the real server: fast backoff, its own signals, warnings dropped. */
export function pageClient(
  endpoint: string,
  storage: RecordStorage,
  env: { fetch?: typeof fetch; online?: ManualSignal } = {},
): ResumableClient {
  return new ResumableClient({
    endpoint,
    storage,
    backoff: { initialMs: 10, maxMs: 50, minMs: 10 },
    onWarning: () => {},
    env: {
      online: env.online ?? createManualSignal(true),
      visible: createManualSignal(true),
      onPageHide: () => () => {},
      ...(env.fetch ? { fetch: env.fetch } : {}),
    },
  });
}
