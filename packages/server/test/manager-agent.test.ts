import { type AGUIEvent, EventType } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { type Agent, startServer } from '../src/index.js';
import { bearer, logOf, postRun, prompt } from './helpers.js';

describe('what the manager adds to an agent', () => {
  it('announces RUN_STARTED at once for an agent slow to answer, keeps an agent’s own one, drops invalid events', async () => {
    const slow: Agent = async function* () {
      await new Promise((resolve) => setTimeout(resolve, 400));
      yield { type: EventType.TEXT_MESSAGE_START, messageId: 'm', role: 'assistant' };
    };
    const own: Agent = async function* () {
      yield {
        type: EventType.RUN_STARTED,
        threadId: 'x',
        runId: 'y',
        parentRunId: 'p',
      } as AGUIEvent;
      yield { type: 'NOT_AN_EVENT' } as unknown as AGUIEvent;
      yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 'm' } as unknown as AGUIEvent;
      yield { type: EventType.RUN_STARTED, threadId: 'x', runId: 'y' } as AGUIEvent;
      yield { type: EventType.RUN_ERROR, message: 'upstream said no', code: 'quota' } as AGUIEvent;
      yield { type: EventType.TEXT_MESSAGE_START, messageId: 'late', role: 'assistant' };
    };
    let agent: Agent = slow;
    const server = await startServer({
      port: 0,
      store: 'memory',
      agent: (input, ctx) => agent(input, ctx),
      log: () => {},
    });
    try {
      const { json: a } = await postRun(server.url, prompt('slow'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const early = await server.store.readEvents(a.runId, 0, 10);
      expect(early.map((e) => JSON.parse(e.json))).toEqual([
        { type: 'RUN_STARTED', threadId: a.threadId, runId: a.runId },
      ]);
      expect((await logOf(server, a.runId, a.token)).map((e) => e.type)).toEqual([
        'RUN_STARTED',
        'TEXT_MESSAGE_START',
        'RUN_FINISHED',
      ]);

      // Cancelled before the agent said anything: the log still starts with RUN_STARTED.
      const { json: c } = await postRun(server.url, prompt('cancel at once'));
      await fetch(`${server.url}/runs/${c.runId}/cancel`, {
        method: 'POST',
        headers: bearer(c.token),
      });
      expect(await logOf(server, c.runId, c.token)).toEqual([
        { type: 'RUN_STARTED', threadId: c.threadId, runId: c.runId },
        {
          type: 'RUN_FINISHED',
          threadId: c.threadId,
          runId: c.runId,
          outcome: { type: 'cancelled' },
        },
      ]);

      agent = own;
      const { json: b } = await postRun(server.url, prompt('own'));
      expect(await logOf(server, b.runId, b.token)).toEqual([
        { type: 'RUN_STARTED', threadId: b.threadId, runId: b.runId, parentRunId: 'p' },
        { type: 'RUN_ERROR', message: 'upstream said no', code: 'quota' },
      ]);
    } finally {
      await server.close();
    }
  });
});
