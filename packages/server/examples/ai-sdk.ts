import { createServer } from 'node:http';
import { simulateReadableStream, streamText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { aiSdkAgent } from '../src/ai-sdk/index.js';
import { createResumableHandler, toNodeListener } from '../src/index.js';

/**
 * `pnpm --filter @resumable/server example:ai-sdk`: an AI SDK agent behind
 * `createResumableHandler` in a plain Node server, on http://127.0.0.1:8788/api. The model
 * is the AI SDK's mock, streaming a canned answer at 5 words a second so there is time to
 * cut a `curl` and resume it; put `openai('gpt-4o-mini')` (or any provider) in its place.
 */

const words =
  'Every chunk is stored with an offset, so a client resumes exactly where it was.'.split(' ');
const model = new MockLanguageModelV4({
  doStream: async () => ({
    stream: simulateReadableStream({
      chunkDelayInMs: 200,
      chunks: [
        { type: 'text-start' as const, id: 't' },
        ...words.map((word, i) => ({
          type: 'text-delta' as const,
          id: 't',
          delta: i === 0 ? word : ` ${word}`,
        })),
        { type: 'text-end' as const, id: 't' },
        {
          type: 'finish' as const,
          finishReason: { unified: 'stop' as const, raw: 'stop' },
          usage: {
            inputTokens: { total: 8, noCache: 8, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: words.length, text: words.length, reasoning: 0 },
          },
        },
      ],
    }),
  }),
});

const handler = createResumableHandler({
  store: 'memory',
  agent: aiSdkAgent(({ instructions, messages, tools, signal }) =>
    streamText({ model, instructions, messages, tools, abortSignal: signal }),
  ),
});
const server = createServer(toNodeListener(handler)).listen(8788, '127.0.0.1', () => {
  console.log('AI SDK agent on http://127.0.0.1:8788/api — try:');
  console.log(
    `curl -s -X POST http://127.0.0.1:8788/api/runs -H 'Content-Type: application/json' -d '{"messages":[{"id":"u1","role":"user","content":"Hi"}]}'`,
  );
});
const stop = async () => {
  server.close();
  await handler.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
