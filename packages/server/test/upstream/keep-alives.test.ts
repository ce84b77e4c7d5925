import type { ServerResponse } from 'node:http';
import type { RunAgentInput } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { openaiAgent } from '../../src/index.js';
import { chunk } from '../fake-upstream.js';
import {
  aguiStack,
  failed,
  frame,
  hostileUpstream,
  openaiStack,
  type Respond,
  reasoningMessage,
  runToEnd,
  socketsClosed,
  textMessage,
} from './harness.js';

/**
 * A model that thinks for long: behind reasoning deltas (events) or SSE comment lines
 * (`: OPENROUTER PROCESSING`). Both keep the run alive; comments alone only up to
 * `keepAliveTimeoutMs`. Times are scaled down: idle 300 ms, thinking 1.2 s.
 */
const sse = (res: ServerResponse) => res.writeHead(200, { 'Content-Type': 'text/event-stream' });

/** Writes `line` every `everyMs` for `forMs` (forever when null), then calls `then`. */
function every(
  res: ServerResponse,
  line: string,
  everyMs: number,
  forMs: number | null,
  then = () => {},
) {
  const began = Date.now();
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    if (forMs !== null && Date.now() - began >= forMs) {
      clearInterval(timer);
      return then();
    }
    res.write(line);
  }, everyMs);
}

const answer = (res: ServerResponse) => {
  res.write(chunk({ content: 'Done.' }, 'stop'));
  res.end('data: [DONE]\n\n');
};

const finishedLog = (run: { threadId: string; runId: string }, thinking: unknown[]) => [
  { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
  ...thinking,
  ...textMessage(`msg-${run.runId}`, ['Done.']),
  { type: 'RUN_FINISHED', threadId: run.threadId, runId: run.runId, outcome: { type: 'success' } },
];

const openai = (respond: Respond, keepAliveTimeoutMs = 5_000) =>
  openaiStack(
    respond,
    { timeoutMs: 5_000, idleTimeoutMs: 300, keepAliveTimeoutMs },
    { agentTimeoutMs: 5_000 },
  );

describe('a model thinking for long', () => {
  // 8 reasoning periods per deadline, as below: at 3–4 (idle 300 ms, agent 400 ms) a loaded
  // machine's first delta came too late and the run failed with no thinking at all.
  it('reasoning deltas are events: 2.4 s of thinking outlasts an 800 ms agent timeout', async () => {
    const { server } = await openaiStack(
      (_req, _body, res) => {
        sse(res);
        every(res, chunk({ reasoning_content: '.' }), 100, 2_400, () => answer(res));
      },
      { timeoutMs: 5_000, idleTimeoutMs: 800 },
      { agentTimeoutMs: 800 },
    );
    const { run, log } = await runToEnd(server);
    const thinking = log.filter((e) => e.type === 'REASONING_MESSAGE_CONTENT');
    expect(thinking.length).toBeGreaterThanOrEqual(16);
    expect(log).toEqual(
      finishedLog(
        run,
        reasoningMessage(
          `reasoning-${run.runId}-1`,
          thinking.map(() => '.'),
        ),
      ),
    );
  });

  it('keep-alive comments prove the upstream alive: 4× idleTimeoutMs of them, then the answer', async () => {
    const { server } = await openai((_req, _body, res) => {
      sse(res);
      every(res, ': OPENROUTER PROCESSING\n\n', 100, 1_200, () => answer(res));
    });
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(finishedLog(run, []));
  });

  // Deadlines 6–8 keep-alive periods long: a loaded machine delays timers by a few hundred
  // ms (at 3–4 periods this failed at load 10), and 2 s of keep-alives still outlast both.
  it("keep-alives hold the run's own silence deadline too: 2 s of them outlast an 800 ms agentTimeoutMs", async () => {
    const { server } = await openaiStack(
      (_req, _body, res) => {
        sse(res);
        every(res, ': OPENROUTER PROCESSING\n\n', 100, 2_000, () => answer(res));
      },
      { timeoutMs: 5_000, idleTimeoutMs: 600 },
      { agentTimeoutMs: 800 },
    );
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(finishedLog(run, []));
  });

  it('keep-alives forever end at keepAliveTimeoutMs, the upstream socket closed', async () => {
    const { upstream, server, what } = await openai((_req, _body, res) => {
      sse(res);
      every(res, ': OPENROUTER PROCESSING\n\n', 50, null);
    }, 900);
    const { run, log, elapsed, endedAt } = await runToEnd(server);
    expect(log).toEqual(failed(run, `${what} sent only keep-alive comments for 900 ms`));
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(3_000);
    expect(await socketsClosed(upstream, endedAt)).toBeLessThan(1_000);
  });

  it('an answer begun, then keep-alives forever: said to be keep-alives, not part of an event (review)', async () => {
    // The review's test waited 3 s for the end, before keepAliveTimeoutMs (default 10 min)
    // existed; comments now hold the run until then, so a short one is set here.
    const { server, what } = await openai((_req, _body, res) => {
      sse(res);
      res.write(chunk({ content: 'Hel' }));
      every(res, ': OPENROUTER PROCESSING\n\n', 50, null);
    }, 600);
    const { log } = await runToEnd(server);
    const end = log.at(-1) as { type: string; message: string };
    expect(end.type).toBe('RUN_ERROR');
    expect(end.message).not.toContain('only part of one');
    expect(end.message).toBe(`${what} sent only keep-alive comments for 600 ms`);
  });

  it('keep-alives, then silence: said to be silence after a keep-alive', async () => {
    const { server, what } = await openai((_req, _body, res) => {
      sse(res);
      every(res, ': OPENROUTER PROCESSING\n\n', 50, 200);
    });
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(failed(run, `${what} sent nothing for 300 ms after a keep-alive comment`));
  });

  it('a comment line that never completes is not a keep-alive', async () => {
    const { server, what } = await openai((_req, _body, res) => {
      sse(res);
      res.write(': OPENROUTER PROC');
      every(res, 'E', 50, null);
    });
    const { run, log } = await runToEnd(server);
    expect(log).toEqual(
      failed(run, `${what} sent no complete event for 300 ms (only part of one)`),
    );
  });

  it("each comment is handed to the server's run clock (AgentContext.keepAlive)", async () => {
    const upstream = await hostileUpstream((_req, _body, res) => {
      sse(res);
      res.write(': a\n\n: b\n');
      res.write(chunk({ content: 'Done.' }));
      res.end(': c\n\ndata: [DONE]\n\n');
    });
    const agent = openaiAgent({ baseUrl: upstream.url, apiKey: 'k', idleTimeoutMs: 1_000 });
    const input: RunAgentInput = {
      threadId: 't1',
      runId: 'r1',
      messages: [{ id: 'u1', role: 'user', content: 'go' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    };
    const events: string[] = [];
    let keptAlive = 0;
    const signal = new AbortController().signal;
    // The parser reads ahead of the agent's yields: counted, not interleaved.
    for await (const event of agent(input, { signal, keepAlive: () => keptAlive++ })) {
      events.push(event.type);
    }
    expect(events).toEqual(['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END']);
    expect(keptAlive).toBe(3);
  });

  it('the AG-UI proxy takes comments (sse-starlette pings) as keep-alives too', async () => {
    const { server } = await aguiStack(
      (_req, body, res) => {
        const { threadId, runId } = JSON.parse(body) as { threadId: string; runId: string };
        sse(res);
        every(res, ': ping - 2026-12-02 01:00:00\r\n\r\n', 100, 1_200, () => {
          res.end(frame({ type: 'RUN_FINISHED', threadId, runId }));
        });
      },
      { timeoutMs: 5_000, idleTimeoutMs: 300, keepAliveTimeoutMs: 5_000 },
    );
    const { run, log } = await runToEnd(server);
    expect(log).toEqual([
      { type: 'RUN_STARTED', threadId: run.threadId, runId: run.runId },
      { type: 'RUN_FINISHED', threadId: run.threadId, runId: run.runId },
    ]);
  });
});
