import { type ChatSession, createMemoryStorage, type ResumableClient } from '@resumable/hooks/core';
import { messageText } from '@resumable/protocol';
import { startServer } from '@resumable/server';
import { fastClient, watchRunWrites } from '../packages/hooks/test/util.js';
import { LockManagerStandIn } from '../packages/hooks/test/web-locks.js';
import { quickOr, writeResults } from './lib/results.js';
import { runText, waitUntil } from './lib/runs.js';

const TABS = 5;
const TOKENS = quickOr(2000, 200);
const TOKENS_PER_SECOND = 400;

interface Figures {
  mode: 'own connection per tab' | 'shared connection';
  tabs: number;
  bytes: number;
  eventStreams: { run: number; thread: number };
  requests: number;
  recordWrites: number;
  /** As `pnpm bench resume` counts P5: first to last throttled write, the terminal flush apart. */
  writesPerSecondWhileStreaming: number;
  maxWritesInOneSecond: number;
  textEqual: boolean;
}

const server = await startServer({ port: 0, store: 'memory', heartbeatMs: 1000 });

/** fetch that counts the bytes of every response body (and the requests). */
function countingFetch(counter: { bytes: number; requests: number }): typeof fetch {
  return async (input, init) => {
    counter.requests++;
    const response = await fetch(input, init);
    if (!response.body || [101, 204, 205, 304].includes(response.status)) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          counter.bytes += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

async function follow(share: boolean): Promise<Figures> {
  const before = server.manager.streamCounts();
  const counter = { bytes: 0, requests: 0 };
  const writes: number[] = [];
  const storage = watchRunWrites(createMemoryStorage(), () => writes.push(performance.now()));
  const locks = new LockManagerStandIn();
  const clients: ResumableClient[] = [];
  const chats: ChatSession[] = [];
  for (let i = 0; i < TABS; i++) {
    const client = fastClient(server.url, storage, {
      fetch: countingFetch(counter),
      locks: share ? locks.client() : null,
    });
    const chat = client.chatSession('bench', {
      shareTabs: share,
      followThread: share,
      runInput: {
        forwardedProps: { script: { tokens: TOKENS, tokensPerSecond: TOKENS_PER_SECOND } },
      },
    });
    chat.retain();
    clients.push(client);
    chats.push(chat);
    // Tabs open one after another, as a user opens them.
    if (share) await waitUntil(() => chat.run.shared.role !== 'pending');
  }
  await chats[0]!.send('five tabs, one answer');
  const runId = chats[0]!.run.getState().runId!;
  for (const chat of chats) {
    await waitUntil(
      () => chat.run.getState().runId === runId && chat.run.getState().status === 'finished',
      120_000,
    );
  }
  const serverText = await runText(server.url, runId, chats[0]!.getState().token!);
  const textEqual = chats.every(
    (chat) => messageText(chat.getState().messages.at(-1)!) === serverText,
  );
  await Promise.all(clients.map((client) => client.dispose()));
  const after = server.manager.streamCounts();
  return {
    mode: share ? 'shared connection' : 'own connection per tab',
    tabs: TABS,
    bytes: counter.bytes,
    eventStreams: {
      run: after.run.opened - before.run.opened,
      thread: after.thread.opened - before.thread.opened,
    },
    requests: counter.requests,
    recordWrites: writes.length,
    writesPerSecondWhileStreaming: streamingRate(writes),
    maxWritesInOneSecond: maxInWindow(writes, 1000),
    textEqual,
  };
}

function streamingRate(times: number[]): number {
  const streaming = times.slice(0, -1);
  if (streaming.length < 2) return 0;
  const span = (streaming.at(-1)! - streaming[0]!) / 1000;
  return Number(((streaming.length - 1) / span).toFixed(2));
}

function maxInWindow(times: number[], ms: number): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= ms) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

const today = await follow(false);
const sharedFigures = await follow(true);
await server.close();

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
console.table(
  [today, sharedFigures].map((f) => ({
    mode: f.mode,
    'bytes from server': kb(f.bytes),
    'run streams': f.eventStreams.run,
    'thread streams': f.eventStreams.thread,
    requests: f.requests,
    'record writes': f.recordWrites,
    'writes / s streaming': f.writesPerSecondWhileStreaming,
    'max writes / 1 s': f.maxWritesInOneSecond,
    'text equal': f.textEqual,
  })),
);
const ratio = today.bytes / sharedFigures.bytes;
console.log(`${TABS} tabs, one ${TOKENS}-token answer: ${ratio.toFixed(2)}× fewer bytes shared`);
writeResults('tabs', {
  tokens: TOKENS,
  tokensPerSecond: TOKENS_PER_SECOND,
  today,
  shared: sharedFigures,
  bytesRatio: Number(ratio.toFixed(2)),
});
if (!today.textEqual || !sharedFigures.textEqual) {
  console.error('a tab ended with another text than the server');
  process.exit(1);
}
