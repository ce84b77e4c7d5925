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
        // An agent's own code is not a run outcome: agent_failed, the code in the message.
        {
          type: 'RUN_ERROR',
          message: 'upstream said no (the agent\'s code: "quota")',
          code: 'agent_failed',
        },
      ]);
    } finally {
      await server.close();
    }
  });

  it('gives the agent the thread history before the new prompt (the client sends only its prompt)', async () => {
    const seen: string[][] = [];
    const agent: Agent = async function* (input) {
      seen.push(input.messages.map((m) => `${m.role}:${m.id}:${String(m.content ?? '')}`));
      yield {
        type: EventType.TEXT_MESSAGE_START,
        messageId: `reply-${input.runId}`,
        role: 'assistant',
      };
      yield {
        type: EventType.TEXT_MESSAGE_CONTENT,
        messageId: `reply-${input.runId}`,
        delta: `answer ${seen.length}`,
      };
      yield { type: EventType.TEXT_MESSAGE_END, messageId: `reply-${input.runId}` };
    };
    const server = await startServer({ port: 0, store: 'memory', agent, log: () => {} });
    try {
      const first = await postRun(server.url, prompt('my name is Ann', undefined, 'u1'));
      await server.manager.waitForRun(first.json.runId);
      const { threadId, token } = first.json;
      const second = await postRun(
        server.url,
        { ...prompt("what's my name?", undefined, 'u2'), threadId },
        bearer(token),
      );
      await server.manager.waitForRun(second.json.runId);
      // A client that sends the conversation itself (an AG-UI HttpAgent) is taken as it is.
      const third = await postRun(
        server.url,
        {
          threadId,
          messages: [
            { id: 'u1', role: 'user', content: 'my name is Ann' },
            { id: 'u3', role: 'user', content: 'again?' },
          ],
        },
        bearer(token),
      );
      await server.manager.waitForRun(third.json.runId);
      expect(seen).toEqual([
        ['user:u1:my name is Ann'],
        [
          'user:u1:my name is Ann',
          `assistant:reply-${first.json.runId}:answer 1`,
          "user:u2:what's my name?",
        ],
        ['user:u1:my name is Ann', 'user:u3:again?'],
      ]);
    } finally {
      await server.close();
    }
  });
});
