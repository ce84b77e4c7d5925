import { afterAll, beforeAll, expect } from 'vitest';
import type { EventStore, RunningServer } from '../src/index.js';
import { postRun, prompt, type Started, serve, tempDir } from './helpers.js';

export const FAST = { tokens: 20, tokensPerSecond: 0 };
export const SLOW = { tokens: 2000, tokensPerSecond: 50 };

/**
 * The server of the HTTP endpoint suites, one per store: a 4 KiB body limit and one CORS
 * origin. `finishedRun` starts a run and waits for its end.
 */
export function useHttpServer(create: (dir: string) => EventStore) {
  const dir = tempDir();
  const ctx = {
    server: undefined as unknown as RunningServer,
    base: '',
    async finishedRun(text = 'Explain offsets', script = FAST): Promise<Started> {
      const { status, json } = await postRun(ctx.base, prompt(text, script));
      expect(status).toBe(201);
      await ctx.server.manager.waitForRun(json.runId);
      return json;
    },
  };
  beforeAll(async () => {
    ctx.server = await serve(create, dir.path, {
      limits: { maxBodyBytes: 4096 },
      cors: { origins: ['https://app.example'] },
    });
    ctx.base = ctx.server.url;
  });
  afterAll(async () => {
    await ctx.server.close();
    dir.cleanup();
  });
  return ctx;
}
