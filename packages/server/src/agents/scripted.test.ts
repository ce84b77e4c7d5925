import type { AGUIEvent, RunAgentInput } from '@resumable/protocol';
import { ResumableError } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { replyTokens, scriptedAgent } from './scripted.js';

const input = (content: string, script?: Record<string, unknown>): RunAgentInput => ({
  threadId: 't',
  runId: 'r',
  messages: [{ id: 'u', role: 'user', content }],
  tools: [],
  context: [],
  state: {},
  ...(script ? { forwardedProps: { script } } : {}),
});

async function collect(iterable: AsyncIterable<AGUIEvent>): Promise<AGUIEvent[]> {
  const out: AGUIEvent[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

describe('scripted agent', () => {
  it('replies with exactly `tokens` deltas: heading, sentences, a code block from the prompt', () => {
    const tokens = replyTokens('Explain offsets', 20);
    expect(tokens).toHaveLength(20);
    expect(tokens.join('')).toBe(
      `## Answer to: Explain offsets\n\n${tokens.slice(4, 14).join('')}\n\n\`\`\`ts\nconst explainOffsets = "Explain offsets";\nconsole.log(explainOffsets.length); // 15\n\`\`\`\n`,
    );
    expect(tokens.slice(4, 14).join('')).toMatch(/^[A-Z][a-z]+( [a-z]+)*\.( [A-Z]?[a-z]+)*\.?$/);
    expect(replyTokens('Explain offsets', 20)).toEqual(tokens);
    expect(replyTokens('Explain offsets', 20, 7)).not.toEqual(tokens);
    expect(replyTokens('x', 3)).toEqual(['## ', 'Answer ', 'to: ']);
    expect(replyTokens('x', 0)).toEqual([]);
  });

  it('calls get_time first when asked for the time', async () => {
    const agent = scriptedAgent({
      now: () => new Date('2026-05-06T07:08:09.000Z'),
      tokensPerSecond: 0,
    });
    const events = await collect(
      agent(input('What time is it?', { tokens: 7 }), { signal: new AbortController().signal }),
    );
    expect(events).toEqual([
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'call-r',
        toolCallName: 'get_time',
        parentMessageId: 'msg-r',
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call-r', delta: '{"timezone":' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'call-r', delta: '"UTC"}' },
      { type: 'TOOL_CALL_END', toolCallId: 'call-r' },
      {
        type: 'TOOL_CALL_RESULT',
        messageId: 'tool-r',
        toolCallId: 'call-r',
        content: '{"time":"2026-05-06T07:08:09.000Z"}',
        role: 'tool',
      },
      { type: 'TEXT_MESSAGE_START', messageId: 'msg-r', role: 'assistant' },
      ...[
        '## ',
        'Answer ',
        'to: ',
        'What time is it?\n\n',
        'It is ',
        '**07:08 UTC** ',
        'on 2026-05-06. ',
      ].map((delta) => ({
        type: 'TEXT_MESSAGE_CONTENT',
        messageId: 'msg-r',
        delta,
      })),
      { type: 'TEXT_MESSAGE_END', messageId: 'msg-r' },
    ]);
  });

  it('paces tokens by tokensPerSecond and stops when aborted', async () => {
    const agent = scriptedAgent({ tokensPerSecond: 50 });
    const started = performance.now();
    const events = await collect(
      agent(input('pace', { tokens: 10 }), { signal: new AbortController().signal }),
    );
    expect(events).toHaveLength(12);
    // 10 tokens at 50/s: the last is due 180 ms after the first.
    expect(performance.now() - started).toBeGreaterThanOrEqual(170);
    const controller = new AbortController();
    const partial: AGUIEvent[] = [];
    for await (const event of agent(input('pace', { tokens: 1000 }), {
      signal: controller.signal,
    })) {
      partial.push(event);
      if (partial.length === 5) controller.abort();
    }
    expect(partial).toHaveLength(5);
  });

  it('fails at failAt, and rejects a malformed script with bad_request', async () => {
    const agent = scriptedAgent({ tokensPerSecond: 0 });
    const signal = new AbortController().signal;
    await expect(collect(agent(input('f', { tokens: 10, failAt: 3 }), { signal }))).rejects.toThrow(
      'scripted failure after 3 tokens',
    );
    const bad = (() => {
      try {
        agent(input('f', { tokens: -1 }), { signal });
        return null;
      } catch (error) {
        return error;
      }
    })();
    expect(bad).toBeInstanceOf(ResumableError);
    expect((bad as ResumableError).toBody()).toEqual({
      error: { code: 'bad_request', message: 'script.tokens must be an integer from 0 to 1000000' },
    });
  });

  it('takes its defaults from SCRIPTED_TOKENS and SCRIPTED_TPS', async () => {
    process.env.SCRIPTED_TOKENS = '3';
    process.env.SCRIPTED_TPS = '0';
    try {
      const events = await collect(
        scriptedAgent()(input('env'), { signal: new AbortController().signal }),
      );
      expect(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')).toHaveLength(3);
    } finally {
      delete process.env.SCRIPTED_TOKENS;
      delete process.env.SCRIPTED_TPS;
    }
  });
});
