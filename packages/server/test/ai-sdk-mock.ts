import { simulateReadableStream } from 'ai';
import type { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll } from 'vitest';
import { type Agent, type RunningServer, startServer } from '../src/index.js';
import { bearer, readEvents } from './helpers.js';

type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
/** A provider stream part (Part), as the mock model takes them. */
export type Part = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

export const USAGE = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 30, text: 22, reasoning: 8 },
};
export const finish = (unified: 'stop' | 'tool-calls' = 'stop'): Part => ({
  type: 'finish',
  finishReason: { unified, raw: unified },
  usage: USAGE,
});
export const stream = (chunks: Part[]) => ({
  stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }),
});

/**
 * One real server for a suite whose tests each bring their own model: set `stack.agent`.
 * `logOf` waits for the run to end and reads its whole log.
 */
export function serveSwappableAgent() {
  const stack = {
    agent: async function* () {} as Agent,
    server: null as unknown as RunningServer,
    async logOf(runId: string, token: string) {
      await stack.server.manager.waitForRun(runId);
      const url = `${stack.server.url}/runs/${runId}/events`;
      const read = await readEvents(url, { headers: bearer(token) });
      return read.frames.map((f) => JSON.parse(f.json) as Record<string, unknown>);
    },
  };
  beforeAll(async () => {
    stack.server = await startServer({
      port: 0,
      store: 'memory',
      agent: (input, ctx) => stack.agent(input, ctx),
    });
  });
  afterAll(() => stack.server.close());
  return stack;
}
