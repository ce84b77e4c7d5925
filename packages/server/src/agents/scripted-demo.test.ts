import type { AGUIEvent, RunAgentInput, RunMessage } from '@resumable/protocol';
import { EventType, foldLog, messageText, toEnvelopes } from '@resumable/protocol';
import { describe, expect, it } from 'vitest';
import { scriptedAgent } from './scripted.js';

const input: RunAgentInput = {
  threadId: 't',
  runId: 'r',
  messages: [{ id: 'u', role: 'user', content: 'How does it survive a reload?' }],
  tools: [],
  context: [],
  state: {},
  forwardedProps: { script: { reply: 'demo', tokensPerSecond: 0 } },
};

async function events(agent = scriptedAgent(), of = input): Promise<AGUIEvent[]> {
  const out: AGUIEvent[] = [];
  for await (const e of agent(of, { signal: new AbortController().signal } as never)) {
    out.push(e);
  }
  return out;
}

describe('the scripted showcase reply (reply: "demo")', () => {
  it('is also the agent\'s own default: scriptedAgent({ reply: "demo" }) with no script', async () => {
    const plain = { ...input, forwardedProps: {} };
    const types = (all: AGUIEvent[]) => all.map((e) => e.type);
    expect(
      types(await events(scriptedAgent({ reply: 'demo', tokensPerSecond: 0 }), plain)),
    ).toEqual(types(await events()));
    // And its default interrupt: a question asked, whatever the prompt.
    const asked = await events(scriptedAgent({ interrupt: 'question', tokensPerSecond: 0 }), plain);
    expect(asked.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: 'interrupt', interrupts: [{ reason: 'question' }] },
    });
  });

  it('streams reasoning, a tool call with its result, then Markdown using every block type', async () => {
    const all = await events();
    const order = all.map((e) => e.type).filter((t, i, a) => t !== a[i - 1]);
    expect(order).toEqual([
      EventType.REASONING_MESSAGE_START,
      EventType.REASONING_MESSAGE_CONTENT,
      EventType.REASONING_MESSAGE_END,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.TOOL_CALL_RESULT,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
    ]);
    const run = foldLog(
      toEnvelopes([
        { type: EventType.RUN_STARTED, threadId: 't', runId: 'r' } as AGUIEvent,
        ...all,
      ]),
    );
    expect(run.warnings).toEqual([]);
    expect(run.messages.map((m) => m.role)).toEqual([
      'reasoning',
      'assistant',
      'tool',
      'assistant',
    ]);
    const [, call, , answer] = run.messages as [unknown, RunMessage, unknown, RunMessage];
    expect(call.role === 'assistant' && call.toolCalls?.[0]?.function).toEqual({
      name: 'search_docs',
      arguments: '{"query":"resume after reload","limit":2}',
    });
    const text = messageText(answer);
    for (const part of [
      '\n## ',
      '\n### ',
      '\n1. ',
      '\n- ',
      '\n| ---',
      '\n> ',
      '```ts\n',
      '```python\n',
    ]) {
      expect(text, part).toContain(part.replace(/^\n/, ''));
    }
  });
});
