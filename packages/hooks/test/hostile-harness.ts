/**
 * The hostile chat suites' shared setup: a fresh `HostileServer` per test (`server`, a live
 * binding), the cleanups to run after it (`stops`), the warnings its chats gave, and chat
 * clients of it with fast bounds.
 */
import { messageText, type ResumableError } from '@resumable/protocol';
import { afterEach, beforeEach } from 'vitest';
import { createManualSignal } from '../src/core/base/env.js';
import type { ChatSession } from '../src/core/chat/chat-session.js';
import { ResumableClient } from '../src/core/client/resumable-client.js';
import { createMemoryStorage, type RecordStorage } from '../src/core/records/storage.js';
import type { LoopOptions } from '../src/core/run/reconnect-loop.js';
import { HostileServer, THREAD, TOKEN } from './hostile-server.js';
import { trackRejections } from './track-rejections.js';

/** Attempts without progress before `no_progress`. */
export const MAX_STALE = 5;
/** How long any case may take to reach its result. */
export const BOUND_MS = 3000;

/** The fast bounds: retries 10–50 ms, `no_progress` after MAX_STALE, `requestTimeoutMs` as given. */
export function fastBounds(requestTimeoutMs: number): LoopOptions & { requestTimeoutMs: number } {
  return {
    backoff: { initialMs: 10, maxMs: 50, minMs: 10 },
    heartbeatMs: 100,
    requestTimeoutMs,
    maxAttemptsWithoutProgress: MAX_STALE,
    stableAfterMs: 1000,
  };
}

/** The chat suites' bounds: a request may take 2 s. */
export const CHAT_FAST = fastBounds(2000);

// Live bindings: each test file imports them, the hooks below set them per test.
export let server: HostileServer;
/** When this test began. */
export let t0 = 0;
export const stops: (() => void)[] = [];
/** The chats' warnings in this test, in order. */
export const warnings: ResumableError[] = [];

/** In the calling test file: a fresh server before each test, `stops` run and it closed after. */
export function hostileServerPerTest(): void {
  trackRejections();
  beforeEach(async () => {
    server = await new HostileServer().start();
    warnings.length = 0;
    t0 = Date.now();
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    await server.close();
  });
}

/** A client of the hostile server with `fast` bounds, its own signals, warnings kept. */
export function chatClient(
  storage: RecordStorage = createMemoryStorage(),
  fast = CHAT_FAST,
): ResumableClient {
  return new ResumableClient({
    ...fast,
    endpoint: server.url,
    storage,
    onWarning: (w) => warnings.push(w),
    env: {
      online: createManualSignal(true),
      visible: createManualSignal(true),
      onPageHide: () => () => {},
    },
  });
}

/** Chat `c` of THREAD: no thread stream, no other tabs (only the requests counted here). */
export function threadChat(storage?: RecordStorage): ChatSession {
  return chatClient(storage).chatSession('c', {
    threadId: THREAD,
    token: TOKEN,
    followThread: false,
    shareTabs: false,
  });
}

/** The chat's messages as `role: text`. */
export const shown = (chat: ChatSession) =>
  chat.getState().messages.map((m) => `${m.role}: ${messageText(m)}`);
