/**
 * `pnpm bench ai-sdk`: a resume through the AI SDK's real `Chat` (what `useChat` runs).
 *
 * A 5,000-token run is cut at 90%. Side by side, in one run, both read by the same `Chat`
 * class from `@ai-sdk/react` calling `resumeStream()`:
 * - ours: `ResumableChatTransport` with the record persisted at the cut: it reads the
 *   events after the stored offset and restates the folded reply once;
 * - the AI SDK's default resume: `DefaultChatTransport` against an endpoint that replays
 *   the reply's UI message stream from its first chunk (what `resumable-stream` serves),
 *   the same reply chunk for chunk.
 * Figures: bytes fetched for the reply and ms until `Chat` has caught up (the stream read
 * to its end, the reply complete). Writes bench/results/ai-sdk.json; `BENCH_QUICK=1` runs
 * each once.
 */
import 'fake-indexeddb/auto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Chat } from '@ai-sdk/react';
import type { Segment } from '@resumable/hooks/ai-sdk';
import { chunksBetween, ResumableChatTransport, segmentsOf } from '@resumable/hooks/ai-sdk';
import type { Envelope } from '@resumable/protocol';
import { applyEnvelopes, createRunState } from '@resumable/protocol';
import { startServer } from '@resumable/server';
import type { UIMessage, UIMessageChunk } from 'ai';
import { DefaultChatTransport } from 'ai';
import { quickOr, writeResults } from './lib/results.js';
import type { StartedRun } from './lib/runs.js';
import { post, readLog, storageAt } from './lib/runs.js';
import { median } from './lib/stats.js';

const TOKENS = 5000;
const CUT = 0.9;
const REPEATS = quickOr(7, 1);

const server = await startServer({ port: 0, store: 'memory' });
const started = await post(server.url, {
  messages: [{ id: 'u', role: 'user', content: 'a long answer please' }],
  forwardedProps: { script: { tokens: TOKENS, tokensPerSecond: 0, seed: 1 } },
});
const log = await readLog(server.url, started.runId, started.token);
const cutAt = Math.floor(log.length * CUT);

/** The reply as an AI SDK server streams it: one chunk per change of the fold, from 0. */
function replayBody(envelopes: readonly Envelope[], messageId: string): string {
  const chunks: UIMessageChunk[] = [{ type: 'start', messageId }];
  let state = createRunState();
  let sent: Segment[] = [];
  for (const envelope of envelopes) {
    state = applyEnvelopes(state, [envelope]).state;
    const next = segmentsOf(state.messages);
    chunks.push(...chunksBetween(sent, next));
    sent = next;
  }
  chunks.push({ type: 'finish', finishReason: 'stop' });
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
}
const replay = replayBody(log, started.runId);
const replayBytes = Buffer.byteLength(replay);
const replayServer = createServer((_req, res) => {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'x-vercel-ai-ui-message-stream': 'v1',
  });
  res.end(replay);
});
await new Promise<void>((resolve) => replayServer.listen(0, '127.0.0.1', resolve));
const replayUrl = `http://127.0.0.1:${(replayServer.address() as AddressInfo).port}/api/chat`;

const replyText = (messages: readonly UIMessage[]) =>
  (messages.at(-1)?.parts ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');

interface Figures {
  bytes: number;
  ms: number;
  text: string;
}

/** Ours: the record at the cut, a fresh transport (a reloaded page), `resumeStream()`. */
async function resumeOurs(ids: StartedRun): Promise<Figures> {
  const storage = await storageAt(log, cutAt, ids, 'bench');
  const t0 = performance.now();
  const transport = new ResumableChatTransport({
    endpoint: server.url,
    storage,
    onWarning: () => {},
  });
  const chat = new Chat({ id: 'bench', transport });
  await chat.resumeStream();
  const ms = performance.now() - t0;
  const bytes = transport.session('bench').run.bytesReceived;
  transport.close();
  await transport.closing();
  return { bytes, ms, text: replyText(chat.messages) };
}

/** The AI SDK's default: `DefaultChatTransport` reads the reply again from its first chunk. */
async function resumeReplay(): Promise<Figures> {
  let bytes = 0;
  const t0 = performance.now();
  const transport = new DefaultChatTransport({
    api: replayUrl,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const body = await response.arrayBuffer();
      bytes += body.byteLength;
      return new Response(body, { status: response.status, headers: response.headers });
    },
  });
  const chat = new Chat({ id: 'bench', transport });
  await chat.resumeStream();
  return { bytes, ms: performance.now() - t0, text: replyText(chat.messages) };
}

const ours: Figures[] = [];
const replays: Figures[] = [];
for (let i = 0; i < REPEATS; i++) {
  ours.push(await resumeOurs(started));
  replays.push(await resumeReplay());
}
replayServer.close();
await server.close();

const expected = log
  .map((e) => e.event)
  .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')
  .map((e) => (e as { delta: string }).delta)
  .join('');
for (const figures of [...ours, ...replays]) {
  if (figures.text !== expected) throw new Error('bench: a resume ended with another text');
}

const oursBytes = median(ours.map((r) => r.bytes));
const oursMs = median(ours.map((r) => r.ms));
const replayMs = median(replays.map((r) => r.ms));
const result = {
  bench: 'ai-sdk',
  date: new Date().toISOString(),
  node: process.version,
  run: { tokens: TOKENS, events: log.length, cutAtOffset: cutAt, replyChars: expected.length },
  repeats: REPEATS,
  ours: {
    how: 'useChat resumeStream() → ResumableChatTransport: events after the stored offset',
    bytes: oursBytes,
    msToCaughtUp: Number(oursMs.toFixed(1)),
  },
  aiSdkDefault: {
    how: 'useChat resumeStream() → DefaultChatTransport: the UI message stream from its first chunk',
    bytes: replayBytes,
    msToCaughtUp: Number(replayMs.toFixed(1)),
  },
  savings: {
    bytes: Number((replayBytes / oursBytes).toFixed(2)),
    time: Number((replayMs / oursMs).toFixed(2)),
  },
};
writeResults('ai-sdk', result);

console.table({
  'useChat + ResumableChatTransport (after=offset)': {
    bytes: oursBytes,
    'ms to caught up': result.ours.msToCaughtUp,
  },
  'useChat + DefaultChatTransport (replay from chunk 1)': {
    bytes: replayBytes,
    'ms to caught up': result.aiSdkDefault.msToCaughtUp,
  },
});
console.log(
  `drop at ${Math.round(CUT * 100)}% of a ${TOKENS}-token run (${log.length} events); ` +
    `both end with the same ${expected.length}-char reply`,
);
